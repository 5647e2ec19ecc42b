// DELETE /memory/{agentId}/memories (clear one Agent's memories) and DELETE /memory (clear all of mine).
import { Controller, Delete, HttpCode, Param, Query } from '@nestjs/common';
import type { z } from 'zod';
import { ReadYourWritesBus } from '#eventsourcing';
import { ApiRoute, ZodQuery } from '#http';
import { commandContext, CurrentCaller, principalOf, type Caller } from '#access';
import { MEMORY_READ_MODELS } from '../../memory.read-model.js';
import { ClearMemoriesQuery } from '../../memory.schemas.js';
import { ClearMemories } from './clear-memories.command.js';

@Controller('api/v1/core/memory')
export class ClearMemoriesController {
  constructor(private readonly writes: ReadYourWritesBus) {}

  @ApiRoute({
    tag: 'Memory',
    summary: "Clear one Agent's memories",
    description:
      "My personal memories of the Agent (`bucket=personal`, the default), or the Agent's shared ones (its manager " +
      'or an admin). Their texts are erased everywhere.',
    query: ClearMemoriesQuery,
    response: { status: 204, description: 'Cleared' },
    errors: [400, 403, 404],
  })
  @Delete(':agentId/memories')
  @HttpCode(204)
  async clear(
    @Param('agentId') agentId: string,
    @Query(new ZodQuery(ClearMemoriesQuery)) query: z.output<typeof ClearMemoriesQuery>,
    @CurrentCaller() caller: Caller,
  ) {
    await this.writes.send(
      new ClearMemories(agentId, query.bucket, commandContext(caller), principalOf(caller)),
      MEMORY_READ_MODELS,
    );
  }

  @ApiRoute({
    tag: 'Memory',
    summary: 'Clear all my memories, across every Agent',
    description: 'Every personal memory of the caller; shared memories are not touched.',
    response: { status: 204, description: 'Cleared' },
  })
  @Delete()
  @HttpCode(204)
  async clearAll(@CurrentCaller() caller: Caller) {
    await this.writes.send(
      new ClearMemories(null, 'personal', commandContext(caller), principalOf(caller)),
      MEMORY_READ_MODELS,
    );
  }
}
