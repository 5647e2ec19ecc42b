// An Agent's section-summary index: the serving tree and the latest build's progress.
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { Requires, type Caller } from '#access';
import { KnowledgeReads } from '../../knowledge-reads.js';
import { KnowledgeResolver } from '../../knowledge-resolver.js';
import { toSummaryIndexStatus } from '../../summary/summary-index.dto.js';
import { SummarySearch } from '../../summary/summary-search.js';

@Requires(KnowledgeResolver, (knowledge, { agentId }: GetSummaryIndex) => knowledge.use(agentId))
export class GetSummaryIndex extends Query<ReturnType<typeof toSummaryIndexStatus>> {
  constructor(
    readonly agentId: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@QueryHandler(GetSummaryIndex)
export class GetSummaryIndexHandler implements IQueryHandler<GetSummaryIndex> {
  constructor(
    private readonly knowledge: KnowledgeReads,
    private readonly summaries: SummarySearch,
  ) {}

  async execute({ agentId }: GetSummaryIndex) {
    await this.knowledge.agent(agentId);
    return toSummaryIndexStatus(agentId, await this.summaries.index(agentId));
  }
}
