// An Agent's section-summary index: the serving tree and the latest build's progress.
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { Caller } from '#access';
import { KnowledgeAccess } from '../../knowledge-access.js';
import { toSummaryIndexStatus } from '../../summary/summary-index.dto.js';
import { SummarySearch } from '../../summary/summary-search.js';

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
    private readonly access: KnowledgeAccess,
    private readonly summaries: SummarySearch,
  ) {}

  async execute({ agentId, caller }: GetSummaryIndex) {
    await this.access.agent(agentId, caller);
    return toSummaryIndexStatus(agentId, await this.summaries.index(agentId));
  }
}
