// Removing a member, or leaving (the member is the principal's user): their access ends with the write (the
// Space's members map the policy reads is among the read models the write waits for). The last owner stays.
// Their conversations and personal memories stay theirs.
import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { NotFoundError } from '#kernel';
import { AggregateRepository, type CommandContext, type WriteResult } from '#eventsourcing';
import { Requires, type Principal } from '#access';
import { READ_STORE, type ReadStore } from '#read-store';
import { spaceDecider } from '../../space.decider.js';
import { spaceStreamId } from '../../space.events.js';
import { loadMembership } from '../../space-membership.js';
import { SpaceResolver } from '../../space-resolver.js';

@Requires(SpaceResolver, (spaces, { spaceId, userId }: RemoveSpaceMember) =>
  spaces.memberChange(spaceId, userId, null),
)
export class RemoveSpaceMember extends Command<WriteResult> {
  constructor(
    readonly spaceId: string,
    readonly userId: string,
    readonly context: CommandContext,
    readonly principal: Principal,
  ) {
    super();
  }
}

@CommandHandler(RemoveSpaceMember)
export class RemoveSpaceMemberHandler implements ICommandHandler<RemoveSpaceMember> {
  constructor(
    private readonly aggregates: AggregateRepository,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
  ) {}

  async execute({ spaceId, userId, context }: RemoveSpaceMember): Promise<WriteResult> {
    const { creatorUserId, currentRole } = await loadMembership(this.readStore, spaceId, userId);
    if (currentRole === null) throw new NotFoundError('Space member', userId);
    const result = await this.aggregates.decide(
      spaceStreamId(spaceId),
      spaceDecider,
      { type: 'RemoveSpaceMember', spaceId, userId, creatorUserId },
      context,
    );
    return { id: spaceId, position: result.position };
  }
}
