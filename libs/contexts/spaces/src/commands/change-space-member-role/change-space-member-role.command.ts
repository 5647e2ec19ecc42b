// Changing a member's role (editors and owners, up to their own role; never one's own; the last owner stays).
import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { NotFoundError } from '#kernel';
import { AggregateRepository, type CommandContext, type WriteResult } from '#eventsourcing';
import { Requires, type Principal } from '#access';
import { READ_STORE, type ReadStore } from '#read-store';
import { spaceDecider } from '../../space.decider.js';
import { spaceStreamId, type SpaceRole } from '../../space.events.js';
import { loadMembership } from '../../space-membership.js';
import { SpaceResolver } from '../../space-resolver.js';

@Requires(SpaceResolver, (spaces, { spaceId, userId, role }: ChangeSpaceMemberRole) =>
  spaces.memberChange(spaceId, userId, role),
)
export class ChangeSpaceMemberRole extends Command<WriteResult> {
  constructor(
    readonly spaceId: string,
    readonly userId: string,
    readonly role: SpaceRole,
    readonly context: CommandContext,
    readonly principal: Principal,
  ) {
    super();
  }
}

@CommandHandler(ChangeSpaceMemberRole)
export class ChangeSpaceMemberRoleHandler implements ICommandHandler<ChangeSpaceMemberRole> {
  constructor(
    private readonly aggregates: AggregateRepository,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
  ) {}

  async execute({ spaceId, userId, role, context }: ChangeSpaceMemberRole): Promise<WriteResult> {
    const { creatorUserId, currentRole } = await loadMembership(this.readStore, spaceId, userId);
    if (currentRole === null) throw new NotFoundError('Space member', userId);
    const result = await this.aggregates.decide(
      spaceStreamId(spaceId),
      spaceDecider,
      { type: 'ChangeSpaceMemberRole', spaceId, userId, role, creatorUserId },
      context,
    );
    return { id: spaceId, position: result.position };
  }
}
