// An Agent's model usage per UTC day: all of it for the Agent's managers and admins, the caller's own (its user's)
// for anyone else granted the Agent. A grant is not the right to see other users' usage.
import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { agentById, AgentResolver, managesAgent } from '#agents';
import { Requires, type Caller } from '#access';
import { READ_STORE, type ReadStore } from '#read-store';
import { agentUserSubject, usageRange, usageReport, type UsageRangeQuery, type UsageReport } from '#usage';

// A malformed range is 400 before the Agent is asked about, as it always was.
@Requires(AgentResolver, (agents, { agentId, query }: GetAgentUsage) => {
  usageRange(query);
  return agents.use(agentId);
})
export class GetAgentUsage extends Query<
  Pick<UsageReport, 'from' | 'to' | 'totals' | 'days' | 'records'> & {
    readonly agentId: string;
    /** `agent`: every user's calls; `user`: the caller's user's only (userId says whose). */
    readonly scope: 'agent' | 'user';
    readonly userId?: string;
  }
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
    const agent = await agentById(this.readStore, agentId);
    if (await managesAgent(this.readStore, agent, caller)) {
      const { from, to, totals, days, records } = await usageReport(this.readStore, 'agent', agentId, range);
      return { agentId, scope: 'agent' as const, from, to, totals, days, records };
    }
    const subject = agentUserSubject(agentId, caller.userId);
    const { from, to, totals, days, records } = await usageReport(
      this.readStore,
      'agentUser',
      subject,
      range,
    );
    return { agentId, scope: 'user' as const, userId: caller.userId, from, to, totals, days, records };
  }
}
