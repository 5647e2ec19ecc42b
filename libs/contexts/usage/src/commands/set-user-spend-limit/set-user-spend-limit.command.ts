// Setting, replacing or removing a user's weekly spend limit (admins). The user must exist (404 otherwise); the
// decider refuses a limit without tokens or cost and records nothing when the limit is unchanged.
import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { NotFoundError } from '#kernel';
import { AggregateRepository, type CommandContext, type WriteResult } from '#eventsourcing';
import { USERS, type UserView } from '#identity';
import { AskedAtRoute, type Principal } from '#access';
import { READ_STORE, type ReadStore } from '#read-store';
import { SpendLimits } from '../../spend-limits.js';
import { userSpendStreamId, type UserSpendLimit } from '../../user-spend.js';
import { userSpendDecider } from '../../user-spend.decider.js';

@AskedAtRoute('the route row asks usage.read.all (admins)')
export class SetUserSpendLimit extends Command<WriteResult> {
  constructor(
    readonly userId: string,
    /** null removes the limit. */
    readonly limit: UserSpendLimit | null,
    readonly context: CommandContext,
    readonly principal: Principal,
  ) {
    super();
  }
}

@CommandHandler(SetUserSpendLimit)
export class SetUserSpendLimitHandler implements ICommandHandler<SetUserSpendLimit> {
  constructor(
    private readonly aggregates: AggregateRepository,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    private readonly limits: SpendLimits,
  ) {}

  async execute({ userId, limit, context }: SetUserSpendLimit): Promise<WriteResult> {
    if (!(await this.readStore.reader<UserView>(USERS).get(userId))) throw new NotFoundError('user', userId);
    const { position } = await this.aggregates.decide(
      userSpendStreamId(userId),
      userSpendDecider,
      { userId, limit },
      context,
    );
    // The gateway's next call in this process applies the new limit (other processes: see SpendLimits).
    this.limits.changed('user', userId, limit);
    return { id: userId, position };
  }
}
