// GET /agents (spec: List Agents).
import { Controller, Get, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { z } from 'zod';
import { ApiRoute, listOf, ZodQuery } from '#http';
import { CurrentCaller, type Caller } from '#access';
import { AgentDto } from '../get-agent/agent.dto.js';
import { ListAgents } from './list-agents.query.js';
import { AgentListQuery } from './list-agents.schema.js';

@Controller('api/v1/core/agents')
export class ListAgentsController {
  constructor(private readonly queries: QueryBus) {}

  @ApiRoute({
    tag: 'Agents',
    summary: 'List the Agents this key may use',
    query: AgentListQuery,
    response: {
      status: 200,
      schema: listOf(AgentDto),
      description:
        "A page of Agents, oldest first (may be short: Agents outside the key's grants are left out)",
    },
    errors: [400],
  })
  @Get()
  list(
    @Query(new ZodQuery(AgentListQuery)) query: z.output<typeof AgentListQuery>,
    @CurrentCaller() caller: Caller,
  ) {
    return this.queries.execute(new ListAgents(query, caller));
  }
}
