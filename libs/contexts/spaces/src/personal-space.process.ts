// Process manager: every user has exactly one private personal Space, created when the user registers (an
// invitation accepted, a key's new owner) through the CreatePersonalSpace command with an id derived from the user,
// so a replay creates nothing. A new process reads the log from its start: every user registered before gets theirs
// on the first start, without a step.
import { Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { causedBy, defineProcess, type EventHandlers } from '#eventsourcing';
import type { UserEvent } from '#identity';
import type { Principal } from '#access';
import { CreatePersonalSpace } from './commands/create-personal-space/create-personal-space.command.js';

type PersonalSpaceRead = Extract<UserEvent, { type: 'UserRegistered' }>;

const PLATFORM: Principal = { kind: 'platform', process: 'personal-space-process' };

@Injectable()
export class PersonalSpaceProcess extends defineProcess<PersonalSpaceRead>({
  name: 'personal-space-process',
  version: 1,
}) {
  constructor(private readonly bus: CommandBus) {
    super();
  }

  readonly on: EventHandlers<PersonalSpaceRead> = {
    UserRegistered: async (event) => {
      await this.bus.execute(
        new CreatePersonalSpace(event.data.userId, causedBy(event, 'personal-space'), PLATFORM),
      );
      return [];
    },
  };
}
