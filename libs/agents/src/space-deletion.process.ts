// Process manager: deleting a Space deletes every Agent in it, each through its own DeleteAgent command, and also an
// Agent created in (or moved to) a Space after that Space was deleted (an owner cascade: Space → Agents, one state
// document per Agent). Commands carry event ids derived from the cause, so a replay appends nothing.
import { Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { EventEnvelope } from '#kernel';
import { causedBy, defineProcess, ownerCascade, type EventHandlers } from '#eventsourcing';
import { AggregateRepository } from '#eventsourcing';
import type { SpaceEvent } from '#spaces';
import { DeleteAgent } from './commands/delete-agent/delete-agent.command.js';
import { agentDecider } from './agent.decider.js';
import { agentStreamId, type AgentEvent } from './agent.events.js';

type Read = Extract<
  AgentEvent | SpaceEvent,
  { type: 'AgentCreated' | 'AgentMovedToSpace' | 'AgentDeleted' | 'SpaceDeleted' }
>;

const spaceAgents = ownerCascade<Read>({
  state: 'pm_space_agents',
  on: {
    AgentCreated: ({ data }) => (data.spaceId ? { add: data.agentId, to: data.spaceId } : null),
    AgentMovedToSpace: ({ data }) => [
      { remove: data.agentId },
      ...(data.spaceId ? [{ add: data.agentId, to: data.spaceId }] : []),
    ],
    AgentDeleted: ({ data }) => ({ remove: data.agentId }),
    SpaceDeleted: ({ data }) => ({ ownerGone: data.spaceId }),
  },
});

@Injectable()
export class SpaceDeletionProcess extends defineProcess<Read>({
  name: 'space-deletion-process',
  version: 2,
  collections: spaceAgents.collections,
}) {
  constructor(
    private readonly aggregates: AggregateRepository,
    private readonly bus: CommandBus,
  ) {
    super();
  }

  readonly on: EventHandlers<Read> = spaceAgents.handlers((agent, cause) =>
    this.deleteAgent(agent.id, cause),
  );

  private async deleteAgent(agentId: string, cause: EventEnvelope): Promise<void> {
    const { state } = await this.aggregates.load(agentStreamId(agentId), agentDecider);
    if (state.status !== 'active') return;
    await this.bus.execute(new DeleteAgent(agentId, 'space_deleted', causedBy(cause, agentId), null));
  }
}
