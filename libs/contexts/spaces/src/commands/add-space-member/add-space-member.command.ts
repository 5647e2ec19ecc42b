// Adding a member to a Space by user id, with a role (editors and owners; nobody grants above their own role).
import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { AggregateRepository, type CommandContext, type WriteResult } from '#eventsourcing';
import { Requires, type Principal } from '#access';
import { READ_STORE, type ReadStore } from '#read-store';
import { spaceDecider } from '../../space.decider.js';
import { spaceStreamId, type SpaceRole } from '../../space.events.js';
import { loadMembership, requireActiveUser } from '../../space-membership.js';
import { SpaceResolver } from '../../space-resolver.js';

@Requires(SpaceResolver, (spaces, { spaceId, userId, role }: AddSpaceMember) =>
  spaces.memberChange(spaceId, userId, role),
)
export class AddSpaceMember extends Command<WriteResult> {
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

@CommandHandler(AddSpaceMember)
export class AddSpaceMemberHandler implements ICommandHandler<AddSpaceMember> {
  constructor(
    private readonly aggregates: AggregateRepository,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
  ) {}

  async execute({ spaceId, userId, role, context }: AddSpaceMember): Promise<WriteResult> {
    const { creatorUserId } = await loadMembership(this.readStore, spaceId, userId);
    await requireActiveUser(this.readStore, userId);
    const result = await this.aggregates.decide(
      spaceStreamId(spaceId),
      spaceDecider,
      { type: 'AddSpaceMember', spaceId, userId, role, creatorUserId },
      context,
    );
    return { id: spaceId, position: result.position };
  }
}
