// DELETE /memory/{agentId}/memories/{memoryId} (spec: delete one memory).
import { Controller, Delete, HttpCode, Param } from '@nestjs/common';
import { ReadYourWritesBus } from '#eventsourcing';
import { ApiRoute } from '#http';
import { commandContext, CurrentCaller, principalOf, type Caller } from '#access';
import { MEMORY_READ_MODELS } from '../../memory.read-model.js';
import { DeleteMemory } from './delete-memory.command.js';

@Controller('api/v1/core/memory/:agentId/memories/:memoryId')
export class DeleteMemoryController {
  constructor(private readonly writes: ReadYourWritesBus) {}

  @ApiRoute({
    tag: 'Memory',
    summary: 'Delete one memory',
    description: 'Its text (every version) is erased everywhere: its data key is destroyed.',
    response: { status: 204, description: 'Deleted' },
    errors: [403, 404],
  })
  @Delete()
  @HttpCode(204)
  async delete(
    @Param('agentId') agentId: string,
    @Param('memoryId') memoryId: string,
    @CurrentCaller() caller: Caller,
  ) {
    await this.writes.send(
      new DeleteMemory(agentId, memoryId, commandContext(caller), principalOf(caller)),
      MEMORY_READ_MODELS,
    );
  }
}
