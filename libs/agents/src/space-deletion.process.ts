// Process manager: deleting a Space deletes every Agent in it, each through its own DeleteAgent command. It keeps
// which Agents each Space holds in its own checkpointed state, and also deletes an Agent created in (or moved to) a
// Space after that Space was deleted. Commands carry event ids derived from the cause, so a replay appends nothing.
import { Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { DeleteAgent } from './commands/delete-agent/delete-agent.command.js';
import type { EventEnvelope } from '#kernel';
import {
  causedBy,
  eventHandlers,
  type EnvelopeOf,
  type ProjectionContext,
  type Projector,
} from '#eventsourcing';
import type { WriteOp } from '#read-store';
import { CommandRunner } from '#platform';
import type { SpaceEvent } from '#spaces';
import { agentDecider } from './agent.decider.js';
import { agentStreamId, type AgentEvent } from './agent.events.js';

interface SpaceMembers {
  readonly id: string;
  readonly agentIds: readonly string[];
  readonly deleted: boolean;
}

const STATE = 'pm_space_members';
const AGENT_SPACE = 'pm_agent_space';

type SpaceDeletionRead = Extract<
  AgentEvent | SpaceEvent,
  { type: 'AgentCreated' | 'AgentMovedToSpace' | 'AgentDeleted' | 'SpaceDeleted' }
>;

@Injectable()
export class SpaceDeletionProcess implements Projector {
  readonly name = 'space-deletion-process';
  readonly version = 1;
  readonly collections = [{ name: STATE }, { name: AGENT_SPACE }];

  constructor(
    private readonly commands: CommandRunner,
    private readonly bus: CommandBus,
  ) {}

  private readonly handlers = eventHandlers<SpaceDeletionRead>({
    AgentCreated: (event, context) => this.handle(event, context),
    AgentMovedToSpace: (event, context) => this.handle(event, context),
    AgentDeleted: (event, context) => this.handle(event, context),
    SpaceDeleted: (event, context) => this.handle(event, context),
  });
  readonly eventTypes = this.handlers.eventTypes;

  project(event: EventEnvelope, context: ProjectionContext) {
    return this.handlers.project(event, context);
  }

  private async handle(event: EnvelopeOf<SpaceDeletionRead>, context: ProjectionContext): Promise<WriteOp[]> {
    const members = async (spaceId: string) =>
      (await context.get<SpaceMembers>(STATE, spaceId)) ?? { id: spaceId, agentIds: [], deleted: false };
    const save = (doc: SpaceMembers): WriteOp => ({ kind: 'upsert', collection: STATE, doc: { ...doc } });

    switch (event.type) {
      case 'AgentCreated':
      case 'AgentMovedToSpace': {
        const ops: WriteOp[] = [];
        if (event.type === 'AgentMovedToSpace')
          ops.push(...(await this.removeAgentFromAll(event.data.agentId, context)));
        const { spaceId, agentId } = event.data;
        if (!spaceId) return ops;
        const space = await members(spaceId);
        if (space.deleted) {
          await this.deleteAgent(agentId, event);
          return ops;
        }
        return [
          ...ops,
          save({ ...space, agentIds: [...space.agentIds.filter((id) => id !== agentId), agentId] }),
          { kind: 'upsert', collection: AGENT_SPACE, doc: { id: agentId, spaceId } },
        ];
      }
      case 'AgentDeleted':
        return this.removeAgentFromAll(event.data.agentId, context);
      case 'SpaceDeleted': {
        const space = await members(event.data.spaceId);
        for (const agentId of space.agentIds) await this.deleteAgent(agentId, event);
        return [save({ id: space.id, agentIds: [], deleted: true })];
      }
      default:
        return [];
    }
  }

  /** Takes an Agent out of the Space it was in (an Agent sits in at most one). */
  private async removeAgentFromAll(agentId: string, context: ProjectionContext): Promise<WriteOp[]> {
    const index = await context.get<{ id: string; spaceId: string }>(AGENT_SPACE, agentId);
    if (!index) return [];
    const ops: WriteOp[] = [{ kind: 'delete', collection: AGENT_SPACE, id: agentId }];
    const space = await context.get<SpaceMembers>(STATE, index.spaceId);
    if (space)
      ops.push({
        kind: 'upsert',
        collection: STATE,
        doc: { ...space, agentIds: space.agentIds.filter((id) => id !== agentId) },
      });
    return ops;
  }

  private async deleteAgent(agentId: string, cause: EventEnvelope): Promise<void> {
    const { state } = await this.commands.load(agentStreamId(agentId), agentDecider);
    if (state.status !== 'active') return;
    await this.bus.execute(new DeleteAgent(agentId, 'space_deleted', causedBy(cause, agentId), null));
  }
}
