// Clearing memories (spec: "clear one Agent's memories, or clear all"): the principal's personal bucket of one Agent,
// the Agent's shared bucket (its manager or an admin), or every personal bucket of the principal across Agents (the
// policy's `memory.own.erase`). Each clear is one event per bucket and destroys the bucket's keys: the texts are gone
// from the log and every read model.
import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { CommandContext, WriteResult } from '#eventsourcing';
import type { Principal } from '#identity';
import { findAll, READ_STORE, type ReadStore } from '#read-store';
import { MemoryAccess } from '../../memory-access.js';
import { SHARED_OWNER } from '../../memory.events.js';
import {
  MEMORIES,
  MEMORY_PROPOSALS,
  type MemoryProposalView,
  type MemoryView,
} from '../../memory.read-model.js';
import { MemoryRepository } from '../../memory.repository.js';

export class ClearMemories extends Command<WriteResult> {
  constructor(
    /** null: every Agent (the principal's personal memories only). */
    readonly agentId: string | null,
    readonly bucket: 'personal' | 'shared',
    readonly context: CommandContext,
    readonly principal: Principal,
  ) {
    super();
  }
}

@CommandHandler(ClearMemories)
export class ClearMemoriesHandler implements ICommandHandler<ClearMemories> {
  constructor(
    private readonly access: MemoryAccess,
    private readonly memories: MemoryRepository,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
  ) {}

  async execute({ agentId, bucket, context, principal }: ClearMemories): Promise<WriteResult> {
    if (agentId === null) {
      const userId = this.access.requireOwnErase(principal);
      const mine = await findAll<MemoryView>(this.readStore, MEMORIES, { owner: userId });
      const proposed = await findAll<MemoryProposalView>(this.readStore, MEMORY_PROPOSALS, {
        userId,
        state: 'pending',
      });
      let position = 0;
      for (const agent of new Set([...mine, ...proposed].map((item) => item.agentId)))
        position = Math.max(position, await this.memories.clear(agent, userId, userId, 'requested', context));
      return { id: userId, position };
    }
    const agent = await this.access.agent(agentId, principal, 'memory.personal.write');
    const userId = this.access.user(principal);
    const owner = bucket === 'shared' ? SHARED_OWNER : userId;
    await this.access.requireWritable(agent, owner, principal);
    return {
      id: agent.id,
      position: await this.memories.clear(agent.id, owner, userId, 'requested', context),
    };
  }
}
