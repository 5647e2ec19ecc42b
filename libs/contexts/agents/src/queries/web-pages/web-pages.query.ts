// What the web pages served by the api read of an Agent: the old chat route redirects a person to the Agent's Space
// when the person may use it, and the embed page shows a public Agent within its Allowed URLs.
import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { allowed, Filters, Requires, type Principal } from '#access';
import { READ_STORE, type ReadStore } from '#read-store';
import { agentById, AgentResolver, agentToUse } from '../../agent-resolver.js';
import type { AgentView } from '../../agents.read-model.js';

/** The Agent if the principal may use it (the policy's `agent.use`); null when there is none or no right. */
@Filters('agent.use')
export class FindUsableAgent extends Query<AgentView | null> {
  constructor(
    readonly agentId: string,
    readonly principal: Principal,
  ) {
    super();
  }
}

/** The Agent an embed page shows: 404 when there is none, 403 `agent_not_public` when no visitor may use it. */
@Requires(AgentResolver, (agents, { agentId }: GetEmbeddableAgent) => agents.embed(agentId, 'page'))
export class GetEmbeddableAgent extends Query<AgentView> {
  constructor(readonly agentId: string) {
    super();
  }
}

@QueryHandler(FindUsableAgent)
export class FindUsableAgentHandler implements IQueryHandler<FindUsableAgent, AgentView | null> {
  constructor(@Inject(READ_STORE) private readonly readStore: ReadStore) {}

  async execute({ agentId, principal }: FindUsableAgent): Promise<AgentView | null> {
    const found = await agentToUse(this.readStore, agentId).catch(() => null);
    return found && allowed(found.asks, principal) ? found.agent : null;
  }
}

@QueryHandler(GetEmbeddableAgent)
export class GetEmbeddableAgentHandler implements IQueryHandler<GetEmbeddableAgent, AgentView> {
  constructor(@Inject(READ_STORE) private readonly readStore: ReadStore) {}

  execute({ agentId }: GetEmbeddableAgent): Promise<AgentView> {
    return agentById(this.readStore, agentId);
  }
}
