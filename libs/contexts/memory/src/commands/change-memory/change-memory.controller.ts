// PATCH /memory/{agentId}/memories/{memoryId} and POST …/rollback (our design).
import { Body, Controller, HttpCode, Param, Patch, Post, UseInterceptors } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { z } from 'zod';
import { ReadYourWritesBus } from '#eventsourcing';
import { ApiRoute, ZodBody } from '#http';
import { IdempotencyInterceptor } from '#identity';
import { commandContext, CurrentCaller, principalOf, type Caller } from '#access';
import { callerScope } from '#model-gateway';
import { MEMORY_READ_MODELS } from '../../memory.read-model.js';
import { ChangeMemoryBody, MemoryDto, RollBackMemoryBody } from '../../memory.schemas.js';
import { GetMemory } from '../../queries/get-memory/get-memory.query.js';
import { ChangeMemory } from './change-memory.command.js';

@UseInterceptors(IdempotencyInterceptor)
@Controller('api/v1/core/memory/:agentId/memories/:memoryId')
export class ChangeMemoryController {
  constructor(
    private readonly writes: ReadYourWritesBus,
    private readonly queries: QueryBus,
  ) {}

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
    return this.send(agentId, memoryId, { text: body.text }, caller);
  }

  @ApiRoute({
    tag: 'Memory',
    summary: 'Roll a memory back to an earlier version',
    idempotent: true,
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
    return this.send(agentId, memoryId, { rollBackTo: body.version }, caller);
  }

  private async send(agentId: string, memoryId: string, change: ChangeMemory['change'], caller: Caller) {
    const principal = principalOf(caller);
    const usage = callerScope(caller, 'core', agentId);
    await this.writes.send(
      new ChangeMemory(agentId, memoryId, change, usage, commandContext(caller), principal),
      MEMORY_READ_MODELS,
    );
    return this.queries.execute(new GetMemory(agentId, memoryId, principal));
  }
}
