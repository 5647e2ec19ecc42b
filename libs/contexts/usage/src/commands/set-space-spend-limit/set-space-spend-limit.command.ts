// Setting, replacing or removing a Space's weekly spend limit: its owners and admins (the policy's `space.change`,
// asked through the SpaceResolver: 404 for a Space the caller cannot see, 403 `space_change_denied` for one it only sees).
// The decider refuses a limit without tokens or cost, and an owner's change of a limit an admin set (403
// `spend_limit_set_by_admin`); it records nothing when the limit is unchanged.
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { AggregateRepository, type CommandContext, type WriteResult } from '#eventsourcing';
import { permits, Requires, type Principal } from '#access';
import { SpaceResolver } from '#spaces';
import { SpendLimits } from '../../spend-limits.js';
import { spaceSpendStreamId, type SpaceSpendLimit } from '../../space-spend.js';
import { spaceSpendDecider } from '../../space-spend.decider.js';

@Requires(SpaceResolver, (spaces, { spaceId, principal }: SetSpaceSpendLimit) =>
  spaces.change(spaceId, principal),
)
export class SetSpaceSpendLimit extends Command<WriteResult> {
  constructor(
    readonly spaceId: string,
    /** null removes the limit. */
    readonly limit: SpaceSpendLimit | null,
    readonly context: CommandContext,
    readonly principal: Principal,
  ) {
    super();
  }
}

@CommandHandler(SetSpaceSpendLimit)
export class SetSpaceSpendLimitHandler implements ICommandHandler<SetSpaceSpendLimit> {
  constructor(
    private readonly aggregates: AggregateRepository,
    private readonly limits: SpendLimits,
  ) {}

  async execute({ spaceId, limit, context, principal }: SetSpaceSpendLimit): Promise<WriteResult> {
    const { position } = await this.aggregates.decide(
      spaceSpendStreamId(spaceId),
      spaceSpendDecider,
      // An admin is whoever manages the instance's settings; the policy says who that is.
      {
        spaceId,
        limit,
        by: permits(principal, 'instance.settings.manage', null) ? 'admin' : 'owner',
      },
      context,
    );
    // The gateway's next call in this process applies the new limit (other processes: see SpendLimits).
    this.limits.changed('space', spaceId, limit);
    return { id: spaceId, position };
  }
}
