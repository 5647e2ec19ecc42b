// PATCH /memory/{agentId}/memories/{memoryId} and POST …/rollback (our design).
import { Body, Controller, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { z } from 'zod';
import { ApiRoute, ZodBody } from '#http';
import { CurrentCaller, type Caller } from '#identity';
import { ChangeMemoryBody, MemoryDto, RollBackMemoryBody } from '../../memory.schemas.js';
import { ChangeMemory } from './change-memory.command.js';

@Controller('api/v1/core/memory/:agentId/memories/:memoryId')
export class ChangeMemoryController {
  constructor(private readonly bus: CommandBus) {}

  @ApiRoute({
    tag: 'Memory',
    summary: 'Edit a memory',
    description: 'A new version; the earlier ones stay in its history. Screened like every new text.',
    body: ChangeMemoryBody,
    response: { status: 200, schema: MemoryDto, description: 'The memory' },
    errors: [400, 403, 404, { status: 422, description: '`memory_flagged_unsafe`' }],
  })
  @Patch()
  change(
    @Param('agentId') agentId: string,
    @Param('memoryId') memoryId: string,
    @Body(new ZodBody(ChangeMemoryBody)) body: z.output<typeof ChangeMemoryBody>,
    @CurrentCaller() caller: Caller,
  ) {
    return this.bus.execute(new ChangeMemory(agentId, memoryId, { text: body.text }, caller));
  }

  @ApiRoute({
    tag: 'Memory',
    summary: 'Roll a memory back to an earlier version',
    description: "The earlier version's text comes back as a new version (history is never rewritten).",
    body: RollBackMemoryBody,
    response: { status: 200, schema: MemoryDto, description: 'The memory' },
    errors: [
      { status: 400, description: '`memory_version_not_found`' },
      403,
      404,
      { status: 409, description: '`memory_version_is_current`' },
    ],
  })
  @Post('rollback')
  @HttpCode(200)
  rollBack(
    @Param('agentId') agentId: string,
    @Param('memoryId') memoryId: string,
    @Body(new ZodBody(RollBackMemoryBody)) body: z.output<typeof RollBackMemoryBody>,
    @CurrentCaller() caller: Caller,
  ) {
    return this.bus.execute(new ChangeMemory(agentId, memoryId, { rollBackTo: body.version }, caller));
  }
}
