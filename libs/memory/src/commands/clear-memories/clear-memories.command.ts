// Clearing memories (spec: "clear one Agent's memories, or clear all"): the caller's personal bucket of one Agent,
// the Agent's shared bucket (its manager or an admin), or every personal bucket of the caller across Agents. Each
// clear is one event per bucket and destroys the bucket's keys: the texts are gone from the log and every read model.
import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { commandContext, type Caller } from '#identity';
import { findAll, READ_STORE, type ReadStore } from '#read-store';
import { MemoryAccess } from '../../memory-access.js';
import { SHARED_OWNER } from '../../memory.events.js';
import {
  MEMORIES,
  MEMORY_PROPOSALS,
  type MemoryProposalView,
  type MemoryView,
} from '../../memory.read-model.js';
import { MemoryStore } from '../../memory-store.js';

export class ClearMemories extends Command<void> {
  constructor(
    /** null: every Agent (the caller's personal memories only). */
    readonly agentId: string | null,
    readonly bucket: 'personal' | 'shared',
    readonly caller: Caller,
  ) {
    super();
  }
}

@CommandHandler(ClearMemories)
export class ClearMemoriesHandler implements ICommandHandler<ClearMemories> {
  constructor(
    private readonly access: MemoryAccess,
    private readonly store: MemoryStore,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
  ) {}

  async execute({ agentId, bucket, caller }: ClearMemories): Promise<void> {
    const context = commandContext(caller);
    if (agentId === null) {
      const mine = await findAll<MemoryView>(this.readStore, MEMORIES, { owner: caller.userId });
      const proposed = await findAll<MemoryProposalView>(this.readStore, MEMORY_PROPOSALS, {
        userId: caller.userId,
        state: 'pending',
      });
      let position = 0;
      for (const agent of new Set([...mine, ...proposed].map((item) => item.agentId)))
        position = Math.max(
          position,
          await this.store.clear(agent, caller.userId, caller.userId, 'requested', context),
        );
      await this.store.settle(position);
      return;
    }
    const agent = await this.access.agent(agentId, caller);
    const owner = bucket === 'shared' ? SHARED_OWNER : caller.userId;
    await this.access.requireWritable(agent, owner, caller);
    await this.store.settle(await this.store.clear(agent.id, owner, caller.userId, 'requested', context));
  }
}
