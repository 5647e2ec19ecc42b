// The Agent a principal may use, for the entry points that are no route of the Agents context (a conversation turn,
// an Agent call of the gateway or the bridge, a conversation lookup): sent on the query bus, so that the gate asks
// `agent.use` as for every other message (404 when there is none, 403 `agent_access_denied` when out of reach).
import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { Requires, type PrincipalOrCaller } from '#access';
import { READ_STORE, type ReadStore } from '#read-store';
import { agentById, AgentResolver } from '../../agent-resolver.js';
import type { AgentView } from '../../agents.read-model.js';

@Requires(AgentResolver, (agents, { agentId }: UseAgent) => agents.use(agentId))
export class UseAgent extends Query<AgentView> {
  constructor(
    readonly agentId: string,
    readonly principal: PrincipalOrCaller,
  ) {
    super();
  }
}

@QueryHandler(UseAgent)
export class UseAgentHandler implements IQueryHandler<UseAgent, AgentView> {
  constructor(@Inject(READ_STORE) private readonly readStore: ReadStore) {}

  execute({ agentId }: UseAgent): Promise<AgentView> {
    return agentById(this.readStore, agentId);
  }
}
