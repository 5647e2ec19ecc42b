// Process manager: deleting an Agent clears its memory buckets (every user's personal one and the shared one), which
// destroys their keys. It keeps which buckets each Agent has in its own checkpointed state; a memory added to an
// Agent already deleted clears its bucket at once. Commands carry ids derived from their cause: a replay appends
// nothing.
import { Injectable } from '@nestjs/common';
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
import type { WriteOp } from '#read-store';
import type { MemoryEvent } from './memory.events.js';
import { MemoryStore } from './memory-store.js';

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
  constructor(private readonly store: MemoryStore) {}

  async execute({ agentId, owner, context }: ClearDeletedAgentBucket): Promise<void> {
    await this.store.clear(agentId, owner, null, 'agent_deleted', context);
  }
}

type Read = Extract<MemoryEvent | AgentEvent, { type: 'MemoryAdded' | 'AgentDeleted' }>;

@Injectable()
export class AgentMemoriesDeletionProcess implements Projector {
  readonly name = 'agent-memories-deletion-process';
  readonly version = 1;
  readonly collections = [{ name: AGENT_BUCKETS }];

  constructor(private readonly bus: CommandBus) {}

  private readonly handlers = eventHandlers<Read>({
    MemoryAdded: async (event, context) => {
      const agent = await this.agent(context, event.data.agentId);
      if (agent.deleted) {
        await this.clear(event.data.agentId, event.data.owner, event);
        return [];
      }
      if (agent.owners.includes(event.data.owner)) return [];
      return [this.save({ ...agent, owners: [...agent.owners, event.data.owner] })];
    },
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
