// Building a section-summary tree: the leaf chunks are grouped by meaning (k-means over their embeddings, within
// windows of neighbouring chunks so the cost stays linear), each group is summarised by the model, the summaries
// are embedded and grouped again, level by level, up to one root. Everything is deterministic for the same input,
// so a group whose members did not change has the same content key as before, and an incremental build reuses its
// summary instead of asking the model again.
import { createHash } from 'node:crypto';
import { seededRandom } from '#kernel';

export interface SummaryLeaf {
  readonly documentId: string;
  readonly text: string;
  readonly embedding: readonly number[];
}

export interface SummaryNode {
  readonly id: string;
  /** 1 for summaries of leaf chunks, up to the root's. */
  readonly level: number;
  readonly summary: string;
  /** Unit length. */
  readonly embedding: readonly number[];
  /** Child summary node ids (empty at level 1). */
  readonly children: readonly string[];
  /** Every document under this node. */
  readonly documentIds: readonly string[];
  readonly leafCount: number;
  /** Content key: the hash of the members' content; a summary is reused for the same key. */
  readonly key: string;
}

export interface SummaryTree {
  readonly nodes: readonly SummaryNode[];
  readonly rootId: string | null;
  readonly levels: number;
  readonly leafCount: number;
}

export interface BuildTreeOptions {
  /** Members per group the clustering aims at. */
  readonly groupSize?: number;
  /** Writes one summary of texts (the members' texts, in order). */
  readonly summarise: (texts: readonly string[], level: number) => Promise<string>;
  readonly embed: (texts: readonly string[]) => Promise<number[][]>;
  /** A summary made earlier for the same content key (incremental builds). */
  readonly reuse?: (key: string) => string | undefined;
  /** Called after each group; throwing stops the build (cancellation). */
  readonly onGroup?: (level: number, done: number, total: number) => Promise<void>;
}

export const DEFAULT_GROUP_SIZE = 6;
/** Items clustered together at most: neighbouring chunks, so clustering costs O(n · window). */
const WINDOW = 384;
const ITERATIONS = 8;

const sha = (text: string): string => createHash('sha256').update(text).digest('hex');

const normalise = (vector: readonly number[]): number[] => {
  let norm = 0;
  for (const x of vector) norm += x * x;
  norm = Math.sqrt(norm) || 1;
  return vector.map((x) => x / norm);
};

const dot = (a: readonly number[], b: readonly number[]): number => {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
  return sum;
};

/**
 * Groups vectors (unit length) into about n / groupSize clusters by spherical k-means with k-means++ seeding; a
 * cluster grown past twice the group size is cut into consecutive groups. Returns groups of indices, each in
 * ascending order, ordered by their first member.
 */
export function clusterVectors(vectors: readonly (readonly number[])[], groupSize: number): number[][] {
  const n = vectors.length;
  const k = Math.ceil(n / groupSize);
  if (k <= 1) return n === 0 ? [] : [vectors.map((_, i) => i)];
  // Seeded: the same input clusters the same way every time.
  const random = seededRandom(n * 7919 + k);
  // k-means++: each next centre far from the chosen ones, with probability by squared distance.
  const centres: number[][] = [[...vectors[0]!]];
  const nearest = vectors.map((v) => 1 - dot(v, centres[0]!));
  while (centres.length < k) {
    const total = nearest.reduce((sum, d) => sum + Math.max(d, 0) ** 2, 0);
    let pick = centres.length % n;
    if (total > 0) {
      let r = random() * total;
      for (pick = 0; pick < n - 1; pick++) {
        r -= Math.max(nearest[pick]!, 0) ** 2;
        if (r <= 0) break;
      }
    }
    const centre = [...vectors[pick]!];
    centres.push(centre);
    for (let i = 0; i < n; i++) nearest[i] = Math.min(nearest[i]!, 1 - dot(vectors[i]!, centre));
  }
  const assignment = new Array<number>(n).fill(-1);
  for (let iteration = 0; iteration < ITERATIONS; iteration++) {
    let moved = false;
    for (let i = 0; i < n; i++) {
      let best = 0;
      let bestScore = -Infinity;
      for (let c = 0; c < centres.length; c++) {
        const score = dot(vectors[i]!, centres[c]!);
        if (score > bestScore) [best, bestScore] = [c, score];
      }
      if (assignment[i] !== best) [assignment[i], moved] = [best, true];
    }
    if (!moved) break;
    const sums = centres.map((centre) => new Array<number>(centre.length).fill(0));
    for (let i = 0; i < n; i++) {
      const sum = sums[assignment[i]!]!;
      vectors[i]!.forEach((x, d) => (sum[d]! += x));
    }
    sums.forEach((sum, c) => {
      if (sum.some((x) => x !== 0)) centres[c] = normalise(sum);
    });
  }
  const clusters = new Map<number, number[]>();
  for (let i = 0; i < n; i++) {
    const members = clusters.get(assignment[i]!) ?? [];
    members.push(i);
    clusters.set(assignment[i]!, members);
  }
  const groups: number[][] = [];
  for (const members of clusters.values()) {
    if (members.length <= groupSize * 2) groups.push(members);
    else
      for (let from = 0; from < members.length; from += groupSize)
        groups.push(members.slice(from, from + groupSize));
  }
  return groups.sort((a, b) => a[0]! - b[0]!);
}

/** Groups items window by window (neighbours stay together, and the cost stays linear in n). */
function groupLayer(vectors: readonly (readonly number[])[], groupSize: number): number[][] {
  const groups: number[][] = [];
  for (let from = 0; from < vectors.length; from += WINDOW) {
    const window = vectors.slice(from, from + WINDOW).map(normalise);
    for (const group of clusterVectors(window, groupSize)) groups.push(group.map((i) => i + from));
  }
  return groups;
}

interface LayerItem {
  readonly id: string | null;
  readonly text: string;
  readonly embedding: readonly number[];
  readonly documentIds: readonly string[];
  readonly leafCount: number;
  readonly key: string;
}

/** Builds the tree over the leaves (in document order). An empty set of leaves gives an empty tree. */
export async function buildSummaryTree(
  leaves: readonly SummaryLeaf[],
  options: BuildTreeOptions,
): Promise<{ tree: SummaryTree; reused: number; summarised: number }> {
  const groupSize = options.groupSize ?? DEFAULT_GROUP_SIZE;
  const nodes: SummaryNode[] = [];
  let reused = 0;
  let summarised = 0;
  let layer: LayerItem[] = leaves.map((leaf) => ({
    id: null,
    text: leaf.text,
    embedding: leaf.embedding,
    documentIds: [leaf.documentId],
    leafCount: 1,
    key: sha(`leaf\n${leaf.text}`),
  }));
  let level = 0;
  while (layer.length > 1 || (level === 0 && layer.length === 1)) {
    level += 1;
    const groups = groupLayer(
      layer.map((item) => item.embedding),
      groupSize,
    );
    const keys = groups.map((group) => sha(`${level}\n${group.map((i) => layer[i]!.key).join('\n')}`));
    const summaries: string[] = [];
    for (const [done, group] of groups.entries()) {
      const members = group.map((i) => layer[i]!);
      const key = keys[done]!;
      const earlier = options.reuse?.(key);
      if (earlier !== undefined) reused += 1;
      else summarised += 1;
      summaries.push(
        earlier ??
          (await options.summarise(
            members.map((member) => member.text),
            level,
          )),
      );
      await options.onGroup?.(level, done + 1, groups.length);
    }
    const embeddings = await options.embed(summaries);
    layer = groups.map((group, g) => {
      const members = group.map((i) => layer[i]!);
      const node: SummaryNode = {
        id: `n${level}.${g}`,
        level,
        summary: summaries[g]!,
        embedding: normalise(embeddings[g]!),
        children: members.flatMap((member) => (member.id ? [member.id] : [])),
        documentIds: [...new Set(members.flatMap((member) => member.documentIds))],
        leafCount: members.reduce((sum, member) => sum + member.leafCount, 0),
        key: keys[g]!,
      };
      nodes.push(node);
      return { ...node, text: node.summary };
    });
  }
  return {
    tree: { nodes, rootId: layer[0]?.id ?? null, levels: level, leafCount: leaves.length },
    reused,
    summarised,
  };
}

/**
 * The tree without every node that covers a document (its summaries quote it): what remains are the subtrees of
 * the other documents. Node ids are kept; children that left are dropped from their parents' lists.
 */
export function pruneSummaryTree(
  tree: SummaryTree,
  documentId: string,
): { tree: SummaryTree; removed: number } {
  const kept = tree.nodes.filter((node) => !node.documentIds.includes(documentId));
  const ids = new Set(kept.map((node) => node.id));
  const nodes = kept.map((node) => ({ ...node, children: node.children.filter((id) => ids.has(id)) }));
  return {
    tree: {
      ...tree,
      nodes,
      rootId: tree.rootId && ids.has(tree.rootId) ? tree.rootId : null,
    },
    removed: tree.nodes.length - nodes.length,
  };
}

/** Every node with its similarity to a query embedding, closest first. */
export function rankSummaryNodes(
  tree: SummaryTree,
  query: readonly number[],
): { node: SummaryNode; score: number }[] {
  const unit = normalise(query);
  return tree.nodes
    .map((node) => ({ node, score: dot(unit, node.embedding) }))
    .sort((a, b) => b.score - a.score);
}
