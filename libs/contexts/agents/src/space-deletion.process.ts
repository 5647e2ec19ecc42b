// Process manager: deleting a Space deletes every Agent in it, each through its own DeleteAgent command, and also an
// Agent created in (or moved to) a Space after that Space was deleted (an owner cascade: Space → Agents, one state
// document per Agent). The platform sends the commands, with event ids derived from the cause; the decider deletes an
// Agent once, so a replay appends nothing.
import { Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { causedBy, defineProcess, ownerCascade, type EventHandlers } from '#eventsourcing';
import { platformPrincipal } from '#access';
import type { SpaceEvent } from '#spaces';
import { DeleteAgent } from './commands/delete-agent/delete-agent.command.js';
import type { AgentEvent } from './agent.events.js';

type Read = Extract<
  AgentEvent | SpaceEvent,
  { type: 'AgentCreated' | 'AgentMovedToSpace' | 'AgentDeleted' | 'SpaceDeleted' }
>;

const PLATFORM = platformPrincipal('space-deletion-process');

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
  constructor(private readonly bus: CommandBus) {
    super();
  }

  readonly on: EventHandlers<Read> = spaceAgents.handlers(async (agent, cause) => {
    await this.bus.execute(new DeleteAgent(agent.id, 'space_deleted', causedBy(cause, agent.id), PLATFORM));
  });
}
