// Deleting one memory: its key is destroyed, so every version of its text is gone from the log and the read models.
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { commandContext, type Caller } from '#identity';
import { MemoryAccess } from '../../memory-access.js';
import { MemoryStore } from '../../memory-store.js';

export class DeleteMemory extends Command<void> {
  constructor(
    readonly agentId: string,
    readonly memoryId: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@CommandHandler(DeleteMemory)
export class DeleteMemoryHandler implements ICommandHandler<DeleteMemory> {
  constructor(
    private readonly access: MemoryAccess,
    private readonly store: MemoryStore,
  ) {}

  async execute({ agentId, memoryId, caller }: DeleteMemory): Promise<void> {
    const agent = await this.access.agent(agentId, caller);
    const view = await this.access.memory(agent, memoryId, caller);
    await this.access.requireWritable(agent, view.owner, caller);
    await this.store.settle(
      await this.store.delete(agent.id, view.owner, memoryId, 'requested', commandContext(caller)),
    );
  }
}
