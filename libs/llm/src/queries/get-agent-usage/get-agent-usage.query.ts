// An Agent's model usage per UTC day, for a caller granted the Agent.
import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { accessibleAgent } from '#agents';
import type { Caller } from '#identity';
import { READ_STORE, type ReadStore } from '#read-store';
import { usageRange, usageReport, type UsageRangeQuery, type UsageReport } from '#usage';

export class GetAgentUsage extends Query<
  Pick<UsageReport, 'from' | 'to' | 'totals' | 'days' | 'records'> & { readonly agentId: string }
> {
  constructor(
    readonly agentId: string,
    readonly query: UsageRangeQuery,
    readonly caller: Caller,
  ) {
    super();
  }
}

@QueryHandler(GetAgentUsage)
export class GetAgentUsageHandler implements IQueryHandler<GetAgentUsage> {
  constructor(@Inject(READ_STORE) private readonly readStore: ReadStore) {}

  async execute({ agentId, query, caller }: GetAgentUsage) {
    const range = usageRange(query);
    await accessibleAgent(this.readStore, agentId, caller);
    const { from, to, totals, days, records } = await usageReport(this.readStore, 'agent', agentId, range);
    return { agentId, from, to, totals, days, records };
  }
}
