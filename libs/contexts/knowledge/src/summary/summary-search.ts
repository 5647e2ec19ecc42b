// Search's use of the section-summary index: the summary closest to a question, from the Agent's serving tree, among
// the summaries whose every document the Agent can still see (a document deleted or moved out of reach since the
// build takes its summaries with it, before the builder prunes them for good).
import { Inject, Injectable } from '@nestjs/common';
import { READ_STORE, type ReadStore } from '#read-store';
import { BLOB_STORE, type BlobStore } from '#blob-store';
import type { AgentView } from '#agents';
import { KNOWLEDGE_DOCUMENTS, type DocumentView } from '../knowledge.read-model.js';
import { SUMMARY_INDEXES, type SummaryIndexView } from './summary-index.read-model.js';
import { loadSummaryTree, type StoredSummaryTree } from './summary-index.worker.js';
import { visibleOwners } from '../visible-owners.js';
import { rankSummaryNodes } from './summary-tree.js';

export interface SummaryMatch {
  readonly nodeId: string;
  readonly level: number;
  readonly text: string;
  readonly score: number;
  readonly documentIds: readonly string[];
  readonly leafCount: number;
  readonly buildId: string;
  readonly builtAt: string;
}

/** Trees kept parsed, by blob id (a blob's content never changes). */
const CACHED_TREES = 16;

@Injectable()
export class SummarySearch {
  private readonly trees = new Map<string, StoredSummaryTree>();

  constructor(
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
  ) {}

  /** The Agent's serving summary index, as the status route shows it. */
  index(agentId: string): Promise<SummaryIndexView | null> {
    return this.readStore.reader<SummaryIndexView>(SUMMARY_INDEXES).get(agentId);
  }

  async tree(blobId: string): Promise<StoredSummaryTree | null> {
    const cached = this.trees.get(blobId);
    if (cached) return cached;
    const tree = await loadSummaryTree(this.blobs, blobId);
    if (!tree) return null;
    if (this.trees.size >= CACHED_TREES) this.trees.delete(this.trees.keys().next().value!);
    this.trees.set(blobId, tree);
    return tree;
  }

  /** The best-matching summary for a query embedding, or null (no index, or nothing the Agent may see). */
  async match(agent: AgentView, embedding: readonly number[]): Promise<SummaryMatch | null> {
    const serving = (await this.index(agent.id))?.serving;
    const tree = serving ? await this.tree(serving.treeBlobId) : null;
    if (!serving || !tree || tree.nodes.length === 0) return null;
    // Closest first; a candidate's documents are looked up only as far as the search gets (usually one small set).
    const owners = visibleOwners(agent);
    const visible = new Map<string, boolean>();
    for (const candidate of rankSummaryNodes(tree, embedding)) {
      const unknown = candidate.node.documentIds.filter((id) => !visible.has(id));
      for (let from = 0; from < unknown.length; from += 500) {
        const ids = unknown.slice(from, from + 500);
        const page = await this.readStore
          .reader<DocumentView>(KNOWLEDGE_DOCUMENTS)
          .find({ id: { $in: ids }, ownerId: { $in: owners } }, { limit: ids.length });
        for (const id of ids) visible.set(id, false);
        for (const document of page.data) visible.set(document.id, true);
      }
      if (!candidate.node.documentIds.every((id) => visible.get(id))) continue;
      const { node, score } = candidate;
      return {
        nodeId: node.id,
        level: node.level,
        text: node.summary,
        score,
        documentIds: node.documentIds,
        leafCount: node.leafCount,
        buildId: serving.buildId,
        builtAt: serving.builtAt,
      };
    }
    return null;
  }
}
