// Deleting one memory: its key is destroyed, so every version of its text is gone from the log and the read models.
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { CommandContext, WriteResult } from '#eventsourcing';
import type { Principal } from '#access';
import { MemoryAccess } from '../../memory-access.js';
import { MemoryRepository } from '../../memory.repository.js';

export class DeleteMemory extends Command<WriteResult> {
  constructor(
    readonly agentId: string,
    readonly memoryId: string,
    readonly context: CommandContext,
    readonly principal: Principal,
  ) {
    super();
  }
}

@CommandHandler(DeleteMemory)
export class DeleteMemoryHandler implements ICommandHandler<DeleteMemory> {
  constructor(
    private readonly access: MemoryAccess,
    private readonly memories: MemoryRepository,
  ) {}

  async execute({ agentId, memoryId, context, principal }: DeleteMemory): Promise<WriteResult> {
    const agent = await this.access.agent(agentId, principal, 'memory.personal.write');
    const view = await this.access.memory(agent, memoryId, principal);
    await this.access.requireWritable(agent, view.owner, principal);
    const position = await this.memories.delete(agent.id, view.owner, memoryId, 'requested', context);
    return { id: memoryId, position };
  }
}
