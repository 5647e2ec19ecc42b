// Changing a user's instance role (admins). Nobody changes their own role; the last active administrator stays.
import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { READ_STORE, type ReadStore } from '#read-store';
import type { CommandContext } from '#eventsourcing';
import { AggregateRepository, type WriteResult } from '#eventsourcing';
import { assertAdmin } from '../../access-policy.js';
import type { Caller } from '../../http/caller.js';
import { userDecider, userStreamId, type UserRole } from '../../user.events.js';
import { otherActiveAdmins } from './admins.js';

export class ChangeUserRole extends Command<WriteResult> {
  constructor(
    readonly userId: string,
    readonly role: UserRole,
    readonly context: CommandContext,
    readonly caller: Caller,
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

  async execute({ userId, role, context, caller }: ChangeUserRole) {
    assertAdmin(caller, 'user.manage');
    const result = await this.aggregates.decide(
      userStreamId(userId),
      userDecider,
      {
        type: 'ChangeUserRole',
        userId,
        role,
        byUserId: caller.userId,
        otherActiveAdmins: await otherActiveAdmins(this.readStore, userId),
        source: caller.source ?? { address: null, userAgent: null },
      },
      context,
    );
    return { id: userId, position: result.position };
  }
}
