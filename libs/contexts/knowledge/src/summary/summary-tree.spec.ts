import {
  rankSummaryNodes,
  buildSummaryTree,
  clusterVectors,
  pruneSummaryTree,
  type SummaryLeaf,
} from './summary-tree.js';

/** A unit vector pointing mostly along one axis: leaves of one topic share the axis. */
const around = (axis: number, jitter: number, dimensions = 8): number[] => {
  const vector = Array.from({ length: dimensions }, (_, i) => (i === axis ? 1 : 0.05 * Math.sin(jitter + i)));
  const norm = Math.hypot(...vector);
  return vector.map((x) => x / norm);
};

const leaves = (topics: number, perTopic: number): SummaryLeaf[] =>
  Array.from({ length: topics * perTopic }, (_, i) => {
    const topic = i % topics;
    return { documentId: `doc-${topic}`, text: `topic ${topic} passage ${i}`, embedding: around(topic, i) };
  });

const summarise = async (texts: readonly string[], level: number) => `L${level}: ${texts.join(' | ')}`;
const embedLike = async (texts: readonly string[]) =>
  texts.map((text) => around(Number(/topic (\d)/.exec(text)?.[1] ?? 7), text.length));

describe('clusterVectors', () => {
  it('groups vectors of one direction together, deterministically, every index once', () => {
    const vectors = leaves(3, 4).map((leaf) => leaf.embedding);
    const groups = clusterVectors(vectors, 4);
    expect(groups.flat().sort((a, b) => a - b)).toEqual(vectors.map((_, i) => i));
    for (const group of groups) expect(new Set(group.map((i) => i % 3)).size).toBe(1);
    expect(clusterVectors(vectors, 4)).toEqual(groups);
  });

  it('cuts a cluster grown past twice the group size', () => {
    const same = Array.from({ length: 20 }, () => around(0, 0));
    const groups = clusterVectors(same, 3);
    expect(Math.max(...groups.map((group) => group.length))).toBeLessThanOrEqual(6);
    expect(groups.flat()).toHaveLength(20);
  });
});

describe('buildSummaryTree', () => {
  it('summarises groups level by level up to one root covering every document', async () => {
    const { tree, reused, summarised } = await buildSummaryTree(leaves(3, 6), {
      groupSize: 3,
      summarise,
      embed: embedLike,
    });
    const root = tree.nodes.find((node) => node.id === tree.rootId)!;
    expect(root.level).toBe(tree.levels);
    expect(tree.levels).toBeGreaterThan(1);
    expect(root.leafCount).toBe(18);
    expect([...root.documentIds].sort()).toEqual(['doc-0', 'doc-1', 'doc-2']);
    expect(reused).toBe(0);
    expect(summarised).toBe(tree.nodes.length);
    // Every level-1 summary is of one topic's passages.
    for (const node of tree.nodes.filter((n) => n.level === 1)) expect(node.documentIds).toHaveLength(1);
  });

  it('reuses the summary of every unchanged group, and stops when told to', async () => {
    const input = leaves(2, 6);
    const first = await buildSummaryTree(input, { groupSize: 3, summarise, embed: embedLike });
    const earlier = new Map(first.tree.nodes.map((node) => [node.key, node.summary]));
    let calls = 0;
    const again = await buildSummaryTree(input, {
      groupSize: 3,
      summarise: async (texts, level) => (calls++, summarise(texts, level)),
      embed: embedLike,
      reuse: (key) => earlier.get(key),
    });
    expect(calls).toBe(0);
    expect(again.reused).toBe(first.tree.nodes.length);
    await expect(
      buildSummaryTree(input, {
        summarise,
        embed: embedLike,
        onGroup: async () => {
          throw new Error('cancelled');
        },
      }),
    ).rejects.toThrow('cancelled');
  });

  it('gives an empty tree for no leaves and one summary for one leaf', async () => {
    expect((await buildSummaryTree([], { summarise, embed: embedLike })).tree).toMatchObject({
      nodes: [],
      rootId: null,
    });
    const single = await buildSummaryTree(leaves(1, 1), { summarise, embed: embedLike });
    expect(single.tree.nodes).toHaveLength(1);
    expect(single.tree.rootId).toBe(single.tree.nodes[0]!.id);
  });
});

describe('pruneSummaryTree and rankSummaryNodes', () => {
  it('removes every summary covering a document, and matches the closest allowed summary', async () => {
    const { tree } = await buildSummaryTree(leaves(3, 6), { groupSize: 3, summarise, embed: embedLike });
    const { tree: pruned, removed } = pruneSummaryTree(tree, 'doc-1');
    expect(removed).toBeGreaterThan(0);
    expect(pruned.rootId).toBeNull();
    expect(pruned.nodes.flatMap((node) => node.documentIds)).not.toContain('doc-1');
    expect(JSON.stringify(pruned.nodes.map((node) => node.summary))).not.toContain('topic 1');
    const ids = new Set(pruned.nodes.map((node) => node.id));
    for (const node of pruned.nodes) for (const child of node.children) expect(ids.has(child)).toBe(true);

    const best = rankSummaryNodes(tree, around(2, 0))[0]!;
    expect(best.node.documentIds).toEqual(['doc-2']);
    expect(
      rankSummaryNodes(tree, around(2, 0)).find(({ node }) => !node.documentIds.includes('doc-2'))!.node
        .documentIds,
    ).not.toContain('doc-2');
    expect(rankSummaryNodes(tree, around(2, 0)).find(() => false) ?? null).toBeNull();
  });
});
