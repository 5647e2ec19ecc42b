// The serving summary tree of an Agent: every summary, its level, children and documents (without embeddings).
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { Requires, type Caller } from '#access';
import { ConflictError } from '#kernel';
import { KnowledgeReads } from '../../knowledge-reads.js';
import { KnowledgeResolver } from '../../knowledge-resolver.js';
import { SummarySearch } from '../../summary/summary-search.js';

@Requires(KnowledgeResolver, (knowledge, { agentId }: GetSummaryTree) => knowledge.use(agentId))
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
    private readonly knowledge: KnowledgeReads,
    private readonly summaries: SummarySearch,
  ) {}

  async execute({ agentId }: GetSummaryTree) {
    await this.knowledge.agent(agentId);
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
