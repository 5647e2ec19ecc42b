// Changing a user's instance role (admins). Nobody changes their own role; the last active administrator stays.
import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { READ_STORE, type ReadStore } from '#read-store';
import type { CommandContext } from '#eventsourcing';
import { AggregateRepository, type WriteResult } from '#eventsourcing';
import { AskedAtRoute, userIdOf, type Principal } from '#access';
import { userStreamId, type UserRole, type ChangeSource } from '../../user.events.js';
import { userDecider } from '../../user.decider.js';
import { otherActiveAdmins } from './admins.js';

@AskedAtRoute('the route row asks user.manage (admins)')
export class ChangeUserRole extends Command<WriteResult> {
  constructor(
    readonly userId: string,
    readonly role: UserRole,
    readonly source: ChangeSource,
    readonly context: CommandContext,
    readonly principal: Principal,
  ) {
    super();
  }
}

@CommandHandler(ChangeUserRole)
export class ChangeUserRoleHandler implements ICommandHandler<ChangeUserRole> {
  constructor(
    private readonly aggregates: AggregateRepository,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
  ) {}

  async execute({ userId, role, source, context, principal }: ChangeUserRole) {
    const result = await this.aggregates.decide(
      userStreamId(userId),
      userDecider,
      {
        type: 'ChangeUserRole',
        userId,
        role,
        byUserId: userIdOf(principal) ?? principal.kind,
        otherActiveAdmins: await otherActiveAdmins(this.readStore, userId),
        source,
      },
      context,
    );
    return { id: userId, position: result.position };
  }
}
