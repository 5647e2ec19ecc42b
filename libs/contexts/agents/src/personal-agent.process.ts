// Process manager: every registered user gets a personal chat Agent (isPersonal, in their private personal Space):
// CreatePersonalAgent with an id derived from the user, sent by the platform with event ids derived from the
// registration; a deleted personal Agent (logs written before they became undeletable) gets a replacement
// (ReplacePersonalAgent); a personal Agent created before personal Spaces is put into its user's when that Space is
// created (PlacePersonalAgent, once). The commands' decider makes each change once, so a replay appends nothing.
import { Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { causedBy, defineProcess, type EventHandlers } from '#eventsourcing';
import { type UserEvent } from '#identity';
import { platformPrincipal } from '#access';
import type { SpaceEvent } from '#spaces';
import {
  CreatePersonalAgent,
  personalAgentId,
} from './commands/create-personal-agent/create-personal-agent.command.js';
import { PlacePersonalAgent } from './commands/place-personal-agent/place-personal-agent.command.js';
import { ReplacePersonalAgent } from './commands/replace-personal-agent/replace-personal-agent.command.js';
import type { AgentEvent } from './agent.events.js';

export { personalAgentId } from './commands/create-personal-agent/create-personal-agent.command.js';
export { replacementPersonalAgentId } from './commands/replace-personal-agent/replace-personal-agent.command.js';

type PersonalAgentRead = Extract<
  UserEvent | AgentEvent | SpaceEvent,
  { type: 'UserRegistered' | 'AgentDeleted' | 'SpaceCreated' }
>;

const PLATFORM = platformPrincipal('personal-agent-process');

/** Keeps the invariant "every user has a personal Agent". */
@Injectable()
export class PersonalAgentProcess extends defineProcess<PersonalAgentRead>({
  name: 'personal-agent-process',
  version: 2,
}) {
  constructor(private readonly bus: CommandBus) {
    super();
  }

  readonly on: EventHandlers<PersonalAgentRead> = {
    UserRegistered: async (event) => {
      const { userId, name } = event.data;
      await this.bus.execute(
        new CreatePersonalAgent(
          personalAgentId(userId),
          userId,
          `${name}'s assistant`,
          causedBy(event, 'personal-agent'),
          PLATFORM,
        ),
      );
      return [];
    },
    AgentDeleted: async (event) => {
      await this.bus.execute(
        new ReplacePersonalAgent(event.data.agentId, event.id, causedBy(event, 'personal-agent'), PLATFORM),
      );
      return [];
    },
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
}
