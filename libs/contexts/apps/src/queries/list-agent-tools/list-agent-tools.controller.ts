// GET /agents/{agentId}/tools (our design): the App tools an Agent is offered, with their settings.
import { Controller, Get, Param } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiRoute } from '#http';
import { CurrentCaller, principalOf, type Caller } from '#access';
import { AgentToolsDto } from './agent-tool.dto.js';
import { ListAgentTools } from './list-agent-tools.query.js';

@Controller('api/v1/core/agents/:agentId/tools')
export class ListAgentToolsController {
  constructor(private readonly queries: QueryBus) {}

  @ApiRoute({
    tag: 'Apps',
    summary: "The App tools an Agent is offered, with its managers' settings",
    description:
      'The tools of the MCP Apps enabled for the Agent, by App id and then as the server lists them. A tool that is ' +
      'switched off (`enabled: false`) or set to `approval: never` is not offered to the model.',
    response: { status: 200, schema: AgentToolsDto, description: "The Agent's App tools" },
    errors: [{ status: 403, description: '`agent_access_denied`' }, 404],
  })
  @Get()
  list(@Param('agentId') agentId: string, @CurrentCaller() caller: Caller) {
    return this.queries.execute(new ListAgentTools(agentId, principalOf(caller)));
  }
}
