// Process manager: deleting an Agent clears its memory buckets (every user's personal one and the shared one), which
// destroys their keys, the keys of the users' pending proposals included (they are filed under the user's bucket, so
// a user with a proposal and no memory has a bucket to clear too). It keeps which buckets each Agent has in its own
// checkpointed state (an owner cascade: Agent → buckets); a memory added (or a proposal made) to an Agent already
// deleted clears its bucket at once. Commands carry ids derived from their cause: a replay appends nothing.
import { Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { AgentEvent } from '#agents';
import { causedBy, defineProcess, ownerCascade, type EventHandlers } from '#eventsourcing';
import type { PlatformPrincipal } from '#access';
import { ClearDeletedAgentBucket } from './commands/clear-deleted-agent-bucket/clear-deleted-agent-bucket.command.js';
import type { MemoryEvent } from './memory.events.js';
import type { MemoryProposalEvent } from './memory-proposal.events.js';

const NAME = 'agent-memories-deletion-process';
const PLATFORM: PlatformPrincipal = { kind: 'platform', process: NAME };

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
  name: NAME,
  version: 3,
  collections: agentBuckets.collections,
}) {
  constructor(private readonly bus: CommandBus) {
    super();
  }

  readonly on: EventHandlers<Read> = agentBuckets.handlers(async ({ id: owner, ownerId: agentId }, cause) => {
    await this.bus.execute(
      new ClearDeletedAgentBucket(agentId, owner, causedBy(cause, `${agentId}:${owner}`), PLATFORM),
    );
  });
}
