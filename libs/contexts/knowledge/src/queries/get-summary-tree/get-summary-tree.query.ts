// The serving summary tree of an Agent: every summary, its level, children and documents (without embeddings).
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { Caller } from '#access';
import { ConflictError } from '#kernel';
import { KnowledgeAccess } from '../../knowledge-access.js';
import { SummarySearch } from '../../summary/summary-search.js';

export class GetSummaryTree extends Query<Record<string, unknown>> {
  constructor(
    readonly agentId: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@QueryHandler(GetSummaryTree)
export class GetSummaryTreeHandler implements IQueryHandler<GetSummaryTree> {
  constructor(
    private readonly access: KnowledgeAccess,
    private readonly summaries: SummarySearch,
  ) {}

  async execute({ agentId, caller }: GetSummaryTree) {
    await this.access.agent(agentId, caller);
    const serving = (await this.summaries.index(agentId))?.serving;
    const tree = serving ? await this.summaries.tree(serving.treeBlobId) : null;
    if (!serving || !tree)
      throw new ConflictError('summary_index_not_built', `Agent '${agentId}' has no summary index yet`);
    return {
      agentId,
      buildId: serving.buildId,
      model: serving.model,
      builtAt: serving.builtAt,
      rootId: tree.rootId,
      levels: tree.levels,
      leafCount: tree.leafCount,
      nodes: tree.nodes.map(({ embedding: _embedding, key: _key, ...node }) => node),
    };
  }
}
