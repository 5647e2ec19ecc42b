// GET /agents/{agentId} (our extension).
import { Controller, Get, Param, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiRoute, AsOfQuery, ZodQuery, type AsOf } from '#http';
import { CurrentCaller, type Caller } from '#access';
import { AgentDto } from './agent.dto.js';
import { GetAgent } from './get-agent.query.js';

@Controller('api/v1/core/agents')
export class GetAgentController {
  constructor(private readonly queries: QueryBus) {}

  @ApiRoute({
    tag: 'Agents',
    summary: 'Get an Agent (extension); with asOf, the Agent as it was at that time (folded from the log)',
    query: AsOfQuery,
    response: { status: 200, schema: AgentDto, description: 'The Agent' },
    errors: [
      400,
      403,
      404,
      { status: 409, description: "`personal_agent_undeletable`: a user's personal Agent" },
    ],
  })
  @Get(':agentId')
  get(
    @Param('agentId') agentId: string,
    @Query(new ZodQuery(AsOfQuery)) query: AsOf,
    @CurrentCaller() caller: Caller,
  ) {
    return this.queries.execute(new GetAgent(agentId, caller, query.asOf ? new Date(query.asOf) : undefined));
  }
}
