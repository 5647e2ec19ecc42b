// GET /cost-control (our extension): an API key's limit, what its window has used, and when it resets.
import { Controller, Get, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { z } from 'zod';
import { ApiRoute, ZodQuery } from '#http';
import { CurrentCaller, type Caller } from '#access';
import { GetCostControl } from './get-cost-control.query.js';
import { CostControlDto, CostControlQuery } from './get-cost-control.schema.js';

@Controller('api/v1/core')
export class GetCostControlController {
  constructor(private readonly queries: QueryBus) {}

  @ApiRoute({
    tag: 'Usage',
    summary: "An API key's usage limit, what its window has used, and when it resets",
    description:
      'Admins set limits with POST/PUT/DELETE /cost-control/{apiKeyId}. Chat completions, rerank and the generate ' +
      'endpoints answer 429 `usage_limit_exceeded` once the window is used up.',
    query: CostControlQuery,
    response: { status: 200, schema: CostControlDto, description: 'The limit and the current window' },
    errors: [401, 403, 404],
  })
  @Get('cost-control')
  costControl(
    @Query(new ZodQuery(CostControlQuery)) query: z.output<typeof CostControlQuery>,
    @CurrentCaller() caller: Caller,
  ) {
    return this.queries.execute(new GetCostControl(query.apiKeyId ?? caller.apiKey.id, caller));
  }
}
