// GET /usage (our extension): daily usage of an API key, Agent, model or user, and a user's split by model or Agent.
import { Controller, Get, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { z } from 'zod';
import { ApiRoute, ZodQuery } from '#http';
import { CurrentCaller, type Caller } from '#access';
import { GetUsage } from './get-usage.query.js';
import { UsageAnswerDto, UsageQuery } from './get-usage.schema.js';

@Controller('api/v1/core')
export class GetUsageController {
  constructor(private readonly queries: QueryBus) {}

  @ApiRoute({
    tag: 'Usage',
    summary: "Daily usage of an API key, Agent, model or user; a user's by model or by Agent",
    description:
      'Built from the recorded model calls of both surfaces. Non-admin keys see their own key and user only ' +
      "(403 `usage_access_denied` otherwise). `dimension=user&by=model|agent` adds the user's split (`parts`).",
    query: UsageQuery,
    response: {
      status: 200,
      schema: UsageAnswerDto,
      description: 'Totals and the days with calls; with `by`, the parts',
    },
    errors: [400, 401, 403],
  })
  @Get('usage')
  usage(
    @Query(new ZodQuery(UsageQuery)) query: z.output<typeof UsageQuery>,
    @CurrentCaller() caller: Caller,
  ) {
    return this.queries.execute(new GetUsage(query, caller));
  }
}
