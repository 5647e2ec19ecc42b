// Process manager: deleting an Agent clears its memory buckets (every user's personal one and the shared one), which
// destroys their keys, the keys of the users' pending proposals included (they are filed under the user's bucket, so
// a user with a proposal and no memory has a bucket to clear too). It keeps which buckets each Agent has in its own
// checkpointed state; a memory added (or a proposal made) to an Agent already deleted clears its bucket at once. Commands carry ids derived from their cause: a replay appends
// nothing.
import { Inject, Injectable } from '@nestjs/common';
import { Command, CommandBus, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { AgentEvent } from '#agents';
import type { EventEnvelope } from '#kernel';
import {
  causedBy,
  eventHandlers,
  type CommandContext,
  type ProjectionContext,
  type Projector,
} from '#eventsourcing';
import { KEY_STORE, type KeyStore } from '#key-store';
import type { WriteOp } from '#read-store';
import type { MemoryEvent } from './memory.events.js';
import type { MemoryProposalEvent } from './memory-proposal.events.js';
import { bucketKeyGroup, MemoryStore } from './memory-store.js';

interface AgentBuckets {
  readonly id: string;
  readonly owners: readonly string[];
  readonly deleted: boolean;
}

const AGENT_BUCKETS = 'pm_agent_memory_buckets';

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

@Injectable()
export class AgentMemoriesDeletionProcess implements Projector {
  readonly name = 'agent-memories-deletion-process';
  readonly version = 2;
  readonly collections = [{ name: AGENT_BUCKETS }];

  constructor(private readonly bus: CommandBus) {}

  private readonly handlers = eventHandlers<Read>({
    MemoryAdded: (event, context) => this.bucket(context, event.data.agentId, event.data.owner, event),
    MemoryProposed: (event, context) => this.bucket(context, event.data.agentId, event.data.userId, event),
    AgentDeleted: async (event, context) => {
      const agent = await this.agent(context, event.data.agentId);
      for (const owner of agent.owners) await this.clear(agent.id, owner, event);
      return [this.save({ id: agent.id, owners: [], deleted: true })];
    },
  });
  readonly eventTypes = this.handlers.eventTypes;

  project(event: EventEnvelope, context: ProjectionContext) {
    return this.handlers.project(event, context);
  }

  /** A bucket the Agent has: remembered, or cleared at once when the Agent is gone already. */
  private async bucket(
    context: ProjectionContext,
    agentId: string,
    owner: string,
    event: EventEnvelope,
  ): Promise<WriteOp[]> {
    const agent = await this.agent(context, agentId);
    if (agent.deleted) {
      await this.clear(agentId, owner, event);
      return [];
    }
    if (agent.owners.includes(owner)) return [];
    return [this.save({ ...agent, owners: [...agent.owners, owner] })];
  }

  private async agent(context: ProjectionContext, agentId: string): Promise<AgentBuckets> {
    return (
      (await context.get<AgentBuckets>(AGENT_BUCKETS, agentId)) ?? { id: agentId, owners: [], deleted: false }
    );
  }

  private save(doc: AgentBuckets): WriteOp {
    return { kind: 'upsert', collection: AGENT_BUCKETS, doc: { ...doc } };
  }

  private clear(agentId: string, owner: string, cause: EventEnvelope): Promise<void> {
    return this.bus.execute(
      new ClearDeletedAgentBucket(agentId, owner, causedBy(cause, `${agentId}:${owner}`)),
    );
  }
}
