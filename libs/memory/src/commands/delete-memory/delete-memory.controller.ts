// DELETE /memory/{agentId}/memories/{memoryId} (spec: delete one memory).
import { Controller, Delete, HttpCode, Param } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiRoute } from '#http';
import { CurrentCaller, type Caller } from '#identity';
import { DeleteMemory } from './delete-memory.command.js';

@Controller('api/v1/core/memory/:agentId/memories/:memoryId')
export class DeleteMemoryController {
  constructor(private readonly bus: CommandBus) {}

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
    await this.bus.execute(new DeleteMemory(agentId, memoryId, caller));
  }
}
