// Deleting one memory: its key is destroyed, so every version of its text is gone from the log and the read models.
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { CommandContext, WriteResult } from '#eventsourcing';
import { Requires, type Principal } from '#access';
import { MemoryResolver, MemoryReads } from '../../memory-resolver.js';
import { MemoryRepository } from '../../memory.repository.js';

@Requires(MemoryResolver, (memory, { agentId, memoryId }: DeleteMemory) =>
  memory.memory(agentId, memoryId, 'memory.personal.write'),
)
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
    private readonly reads: MemoryReads,
    private readonly memories: MemoryRepository,
  ) {}

  async execute({ agentId, memoryId, context }: DeleteMemory): Promise<WriteResult> {
    const agent = await this.reads.agent(agentId);
    const view = await this.reads.memory(agent, memoryId);
    const position = await this.memories.delete(agent.id, view.owner, memoryId, 'requested', context);
    return { id: memoryId, position };
  }
}
