// GET /llm/{agentId}/usage (spec).
import { Controller, Get, Param, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiRoute, ZodQuery } from '#http';
import { CurrentCaller, type Caller } from '#access';
import { UsageRangeQuery } from '#usage';
import { UsageDto } from '../../llm.schemas.js';
import { GetAgentUsage } from './get-agent-usage.query.js';

@Controller('api/v1/core/llm/:agentId')
export class GetAgentUsageController {
  constructor(private readonly queries: QueryBus) {}

  @ApiRoute({
    tag: 'LLM',
    summary: "The Agent's model usage per UTC day",
    description:
      "The Agent's managers (keys that may change its Space) and admins see every user's calls; anyone else granted " +
      "the Agent sees its own user's (`scope` says which). Calls appear a moment after they end (the usage read " +
      'model is updated asynchronously).',
    query: UsageRangeQuery,
    response: { status: 200, schema: UsageDto, description: 'Totals and the days with calls' },
    errors: [400, 403, 404],
  })
  @Get('usage')
  usage(
    @Param('agentId') agentId: string,
    @Query(new ZodQuery(UsageRangeQuery)) query: UsageRangeQuery,
    @CurrentCaller() caller: Caller,
  ) {
    return this.queries.execute(new GetAgentUsage(agentId, query, caller));
  }
}
