// Clearing memories (spec: "clear one Agent's memories, or clear all"): the principal's personal bucket of one Agent,
// the Agent's shared bucket (its manager or an admin), or every personal bucket of the principal across Agents (the
// policy's `memory.own.erase`). Each clear is one event per bucket and destroys the bucket's keys: the texts are gone
// from the log and every read model.
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { CommandContext, WriteResult } from '#eventsourcing';
import { Requires, type Principal } from '#access';
import { MemoryResolver, MemoryReads } from '../../memory-resolver.js';
import { SHARED_OWNER } from '../../memory.events.js';
import { MemoryReader } from '../../memory.reader.js';
import { MemoryRepository } from '../../memory.repository.js';

@Requires(MemoryResolver, (memory, { agentId, bucket }: ClearMemories) => memory.clear(agentId, bucket))
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
    private readonly reads: MemoryReads,
    private readonly reader: MemoryReader,
    private readonly memories: MemoryRepository,
  ) {}

  async execute({ agentId, bucket, context, principal }: ClearMemories): Promise<WriteResult> {
    if (agentId === null) {
      const userId = this.reads.user(principal);
      let position = 0;
      for (const agent of await this.reader.agentsWithBucketsOf(userId))
        position = Math.max(position, await this.memories.clear(agent, userId, userId, 'requested', context));
      return { id: userId, position };
    }
    const agent = await this.reads.agent(agentId);
    const userId = this.reads.user(principal);
    const owner = bucket === 'shared' ? SHARED_OWNER : userId;
    return {
      id: agent.id,
      position: await this.memories.clear(agent.id, owner, userId, 'requested', context),
    };
  }
}
