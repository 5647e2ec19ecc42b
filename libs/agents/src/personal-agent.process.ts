// Process manager: every registered user gets a personal chat Agent (isPersonal, in their private personal Space),
// created through the ordinary CreateAgent command with an id and event ids derived from the registration, so a
// replay creates nothing. A personal Agent created before personal Spaces is put into its user's when that Space is
// created (PlacePersonalAgent: once).
import { Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { CreateAgent } from './commands/create-agent/create-agent.command.js';
import { sha256, type EventEnvelope } from '#kernel';
import { causedBy, defineProcess, type EnvelopeOf, type EventHandlers } from '#eventsourcing';
import { AggregateRepository } from '#eventsourcing';
import type { Principal, UserEvent } from '#identity';
import { personalSpaceId, type SpaceEvent } from '#spaces';
import { PlacePersonalAgent } from './commands/place-personal-agent/place-personal-agent.command.js';
import { agentDecider } from './agent.decider.js';
import { agentStreamId, type AgentEvent } from './agent.events.js';

export const personalAgentId = (userId: string): string => `agt_personal_${sha256(userId).slice(0, 24)}`;

/** The personal Agent that replaces one deleted by the event `deletionEventId` (derived: a replay makes the same). */
export const replacementPersonalAgentId = (userId: string, deletionEventId: string): string =>
  `agt_personal_${sha256(`${userId}:${deletionEventId}`).slice(0, 24)}`;

type PersonalAgentRead = Extract<
  UserEvent | AgentEvent | SpaceEvent,
  { type: 'UserRegistered' | 'AgentDeleted' | 'SpaceCreated' }
>;

const PLATFORM: Principal = { kind: 'platform', process: 'personal-agent-process' };

/**
 * Keeps the invariant "every user has a personal Agent": creates it when the user registers, and creates a new one
 * if a log holds the deletion of one (personal Agents can no longer be deleted, but logs written before could).
 */
@Injectable()
export class PersonalAgentProcess extends defineProcess<PersonalAgentRead>({
  name: 'personal-agent-process',
  version: 2,
}) {
  constructor(
    private readonly aggregates: AggregateRepository,
    private readonly bus: CommandBus,
  ) {
    super();
  }

  readonly on: EventHandlers<PersonalAgentRead> = {
    UserRegistered: (event) => this.handle(event),
    AgentDeleted: (event) => this.handle(event),
    SpaceCreated: async (event) => {
      const userId = event.data.personalOf;
      if (userId)
        await this.bus.execute(
          new PlacePersonalAgent(
            personalAgentId(userId),
            event.data.spaceId,
            causedBy(event, 'personal-agent-space'),
            PLATFORM,
          ),
        );
      return [];
    },
  };

  private async handle(event: EnvelopeOf<PersonalAgentRead>): Promise<never[]> {
    if (event.type === 'UserRegistered') {
      await this.ensure(personalAgentId(event.data.userId), event.data.userId, event.data.name, event);
      return [];
    }
    if (event.type !== 'AgentDeleted') return [];
    const { state } = await this.aggregates.load(agentStreamId(event.data.agentId), agentDecider);
    if (state.status !== 'deleted' || !state.isPersonal || !state.ownerUserId) return [];
    const name = state.name.replace(/'s assistant$/, '');
    await this.ensure(
      replacementPersonalAgentId(state.ownerUserId, event.id),
      state.ownerUserId,
      name,
      event,
    );
    return [];
  }

  private async ensure(agentId: string, userId: string, name: string, cause: EventEnvelope): Promise<void> {
    const { state } = await this.aggregates.load(agentStreamId(agentId), agentDecider);
    if (state.status !== 'absent') return;
    await this.bus.execute(
      new CreateAgent(
        {
          spaceId: personalSpaceId(userId),
          isPersonal: true,
          ownerUserId: userId,
          settings: { name: `${name}'s assistant` },
        },
        causedBy(cause, 'personal-agent'),
        null,
        agentId,
      ),
    );
  }
}
