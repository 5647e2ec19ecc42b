// The App tools an Agent is offered with their settings: whoever uses the Agent may read them (they see the calls in
// its chat); its managers change them (commands/change-agent-tool).
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { Requires, type Principal } from '#access';
import { AgentResolver } from '#agents';
import { AgentToolCatalog } from '../../agent-tool-catalog.js';
import { toAgentToolDto, type AgentToolOutput } from './agent-tool.dto.js';

@Requires(AgentResolver, (agents, { agentId }: ListAgentTools) => agents.use(agentId))
export class ListAgentTools extends Query<{ data: AgentToolOutput[] }> {
  constructor(
    readonly agentId: string,
    readonly principal: Principal,
  ) {
    super();
  }
}

@QueryHandler(ListAgentTools)
export class ListAgentToolsHandler implements IQueryHandler<ListAgentTools> {
  constructor(private readonly catalog: AgentToolCatalog) {}

  async execute({ agentId }: ListAgentTools): Promise<{ data: AgentToolOutput[] }> {
    return { data: (await this.catalog.tools(agentId)).map(toAgentToolDto) };
  }
}
