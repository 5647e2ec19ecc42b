// Process manager: deleting an Agent clears its memory buckets (every user's personal one and the shared one), which
// destroys their keys, the keys of the users' pending proposals included (they are filed under the user's bucket, so
// a user with a proposal and no memory has a bucket to clear too). It keeps which buckets each Agent has in its own
// checkpointed state (an owner cascade: Agent → buckets); a memory added (or a proposal made) to an Agent already
// deleted clears its bucket at once. Commands carry ids derived from their cause: a replay appends nothing.
import { Inject, Injectable } from '@nestjs/common';
import { Command, CommandBus, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { AgentEvent } from '#agents';
import {
  causedBy,
  defineProcess,
  ownerCascade,
  type CommandContext,
  type EventHandlers,
} from '#eventsourcing';
import { KEY_STORE, type KeyStore } from '#key-store';
import type { MemoryEvent } from './memory.events.js';
import type { MemoryProposalEvent } from './memory-proposal.events.js';
import { bucketKeyGroup, MemoryStore } from './memory-store.js';

/** The platform clears a bucket because its Agent was deleted. */
export class ClearDeletedAgentBucket extends Command<void> {
  constructor(
    readonly agentId: string,
    readonly owner: string,
    readonly context: CommandContext,
  ) {
    super();
  }
}

@CommandHandler(ClearDeletedAgentBucket)
export class ClearDeletedAgentBucketHandler implements ICommandHandler<ClearDeletedAgentBucket> {
  constructor(
    private readonly store: MemoryStore,
    @Inject(KEY_STORE) private readonly keys: KeyStore,
  ) {}

  async execute({ agentId, owner, context }: ClearDeletedAgentBucket): Promise<void> {
    await this.store.clear(agentId, owner, null, 'agent_deleted', context);
    // A bucket with no live memory clears nothing (no event), yet its group may hold pending proposals' keys.
    await this.keys.destroyGroup(bucketKeyGroup(agentId, owner));
  }
}

type Read = Extract<
  MemoryEvent | MemoryProposalEvent | AgentEvent,
  { type: 'MemoryAdded' | 'MemoryProposed' | 'AgentDeleted' }
>;

/** Agent → its buckets (a user's, or the shared one), one state document per bucket. */
const agentBuckets = ownerCascade<Read>({
  state: 'pm_agent_memory_buckets',
  on: {
    MemoryAdded: ({ data }) => ({ add: data.owner, to: data.agentId }),
    MemoryProposed: ({ data }) => ({ add: data.userId, to: data.agentId }),
    AgentDeleted: ({ data }) => ({ ownerGone: data.agentId }),
  },
});

@Injectable()
export class AgentMemoriesDeletionProcess extends defineProcess<Read>({
  name: 'agent-memories-deletion-process',
  version: 3,
  collections: agentBuckets.collections,
}) {
  constructor(private readonly bus: CommandBus) {
    super();
  }

  readonly on: EventHandlers<Read> = agentBuckets.handlers(({ id: owner, ownerId: agentId }, cause) =>
    this.bus.execute(new ClearDeletedAgentBucket(agentId, owner, causedBy(cause, `${agentId}:${owner}`))),
  );
}
