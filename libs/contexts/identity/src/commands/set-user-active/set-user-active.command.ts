// Deactivating (every session and API key of the person stops at once: the guard refuses a deactivated user's
// credentials) and reactivating a user (admins). Nobody deactivates themselves; the last active administrator stays.
import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { READ_STORE, type ReadStore } from '#read-store';
import type { CommandContext } from '#eventsourcing';
import { AggregateRepository, type WriteResult } from '#eventsourcing';
import { AskedAtRoute, userIdOf, type Principal } from '#access';
import { userStreamId, type ChangeSource } from '../../user.events.js';
import { userDecider } from '../../user.decider.js';
import { otherActiveAdmins } from '../change-user/admins.js';

@AskedAtRoute('the route row asks user.manage (admins)')
export class SetUserActive extends Command<WriteResult> {
  constructor(
    readonly userId: string,
    readonly active: boolean,
    readonly source: ChangeSource,
    readonly context: CommandContext,
    readonly principal: Principal,
  ) {
    super();
  }
}

@CommandHandler(SetUserActive)
export class SetUserActiveHandler implements ICommandHandler<SetUserActive> {
  constructor(
    private readonly aggregates: AggregateRepository,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
  ) {}

  async execute({ userId, active, source, context, principal }: SetUserActive) {
    const result = await this.aggregates.decide(
      userStreamId(userId),
      userDecider,
      active
        ? { type: 'ReactivateUser', userId, source }
        : {
            type: 'DeactivateUser',
            userId,
            byUserId: userIdOf(principal) ?? principal.kind,
            otherActiveAdmins: await otherActiveAdmins(this.readStore, userId),
            source,
          },
      context,
    );
    return { id: userId, position: result.position };
  }
}
