// GET /api-keys (our extension, admins).
import { Controller, Get, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { z } from 'zod';
import { ApiRoute, listOf, ListQuery, ZodQuery } from '#http';
import { CurrentCaller, type Caller } from '#access';
import { ApiKeyDto } from '../get-api-key/api-key.dto.js';
import { ListApiKeys } from './list-api-keys.query.js';

@Controller('api/v1/core')
export class ListApiKeysController {
  constructor(private readonly queries: QueryBus) {}

  @ApiRoute({
    tag: 'API keys',
    summary: 'List API keys (admin)',
    query: ListQuery,
    response: { status: 200, schema: listOf(ApiKeyDto), description: 'A page of keys; never the secrets' },
    errors: [400, 403],
  })
  @Get('api-keys')
  list(@Query(new ZodQuery(ListQuery)) query: z.output<typeof ListQuery>, @CurrentCaller() caller: Caller) {
    return this.queries.execute(new ListApiKeys(query, caller));
  }
}
