// POST /memory/{agentId}/memories (our design): add a memory.
import { Body, Controller, Param, Post, UseInterceptors } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { z } from 'zod';
import { ReadYourWritesBus } from '#eventsourcing';
import { ApiRoute, ZodBody } from '#http';
import { IdempotencyInterceptor } from '#identity';
import { commandContext, CurrentCaller, principalOf, type Caller } from '#access';
import { callerScope } from '#model-gateway';
import { MEMORY_READ_MODELS } from '../../memory.read-model.js';
import { AddMemoryBody, MemoryDto } from '../../memory.schemas.js';
import { GetMemory } from '../../queries/get-memory/get-memory.query.js';
import { AddMemory } from './add-memory.command.js';

@UseInterceptors(IdempotencyInterceptor)
@Controller('api/v1/core/memory/:agentId/memories')
export class AddMemoryController {
  constructor(
    private readonly writes: ReadYourWritesBus,
    private readonly queries: QueryBus,
  ) {}

  @ApiRoute({
    tag: 'Memory',
    summary: 'Add a memory',
    idempotent: true,
    description:
      'Screened for prompt injection first: a flagged text is not saved (422 with the message ' +
      '`Memory not saved - flagged as unsafe.`). A full personal bucket retires its least recently used memory; a ' +
      "full shared bucket retires the writer's own least recently used memory, never another contributor's.",
    body: AddMemoryBody,
    response: { status: 201, schema: MemoryDto, description: 'The memory' },
    errors: [
      {
        status: 400,
        description:
          'Invalid request; `memory_disabled` (memory off, or a public Agent); `shared_memory_disabled`',
      },
      { status: 403, description: "`shared_memory_change_denied`: shared memories need the Agent's manager" },
      404,
      {
        status: 409,
        description:
          "`shared_memory_full`: the shared bucket is full and none of its memories is the caller's to retire",
      },
      { status: 422, description: '`memory_flagged_unsafe`: `Memory not saved - flagged as unsafe.`' },
    ],
  })
  @Post()
  async add(
    @Param('agentId') agentId: string,
    @Body(new ZodBody(AddMemoryBody)) body: z.output<typeof AddMemoryBody>,
    @CurrentCaller() caller: Caller,
  ) {
    const principal = principalOf(caller);
    const { id } = await this.writes.send(
      new AddMemory(agentId, body, callerScope(caller, 'core', agentId), commandContext(caller), principal),
      MEMORY_READ_MODELS,
    );
    return this.queries.execute(new GetMemory(agentId, id, principal));
  }
}
