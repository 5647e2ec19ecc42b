// GET /memory/{agentId}/memories (our design).
import { Controller, Get, Param, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { z } from 'zod';
import { ApiRoute, listOf, ZodQuery } from '#http';
import { CurrentCaller, principalOf, type Caller } from '#access';
import { MemoryDto, MemoryListQuery } from '../../memory.schemas.js';
import { ListMemories } from './list-memories.query.js';
import { ListMemoriesAsOf } from './list-memories-as-of.query.js';

@Controller('api/v1/core/memory/:agentId/memories')
export class ListMemoriesController {
  constructor(private readonly queries: QueryBus) {}

  @ApiRoute({
    tag: 'Memory',
    summary: 'My personal memories of the Agent and its shared ones',
    description:
      'All of them in one page (a bucket holds at most its cap: MEMORY_PERSONAL_CAP, MEMORY_SHARED_CAP). For the ' +
      "Agent's manager and admins each shared memory also carries its `contributor` (who added it, and whether " +
      'directly or by confirming a proposal) and the `answers` that used it; they can remove it with ' +
      '`DELETE /memory/{agentId}/memories/{memoryId}`.',
    query: MemoryListQuery,
    response: { status: 200, schema: listOf(MemoryDto), description: 'The memories, oldest first' },
    errors: [400, 403, 404],
  })
  @Get()
  list(
    @Param('agentId') agentId: string,
    @Query(new ZodQuery(MemoryListQuery)) query: z.output<typeof MemoryListQuery>,
    @CurrentCaller() caller: Caller,
  ) {
    if (query.asOf !== undefined)
      return this.queries.execute(new ListMemoriesAsOf(agentId, query, principalOf(caller)));
    return this.queries.execute(new ListMemories(agentId, query, principalOf(caller)));
  }
}
