// A Space created before members existed gets its creator as owner (the legacy-space-owner process, for the
// platform): until then only the very key that created it was its owner (the policy's fallback). The decider says
// whether there is anything to do (a Space with members, a personal or deleted one: nothing).
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { AggregateRepository, type CommandContext, type WriteResult } from '#eventsourcing';
import { ask, Requires, type Principal } from '#access';
import { spaceDecider } from '../../space.decider.js';
import { spaceStreamId } from '../../space.events.js';

const PLATFORM_ONLY = 'the creator of a Space is made its owner by the platform';

// The platform only: it acts on the log (a user adds members through AddSpaceMember).
@Requires(({ spaceId, creatorUserId }: AdoptSpaceCreator) => [
  ask('platform.step', null, PLATFORM_ONLY),
  ask(
    'space.member.change',
    { space: { id: spaceId }, userId: creatorUserId, currentRole: null, newRole: 'owner' },
    PLATFORM_ONLY,
  ),
])
export class AdoptSpaceCreator extends Command<WriteResult> {
  constructor(
    readonly spaceId: string,
    readonly creatorUserId: string,
    readonly context: CommandContext,
    readonly principal: Principal,
  ) {
    super();
  }
}

@CommandHandler(AdoptSpaceCreator)
export class AdoptSpaceCreatorHandler implements ICommandHandler<AdoptSpaceCreator> {
  constructor(private readonly aggregates: AggregateRepository) {}

  async execute({ spaceId, creatorUserId, context }: AdoptSpaceCreator): Promise<WriteResult> {
    const result = await this.aggregates.decide(
      spaceStreamId(spaceId),
      spaceDecider,
      { type: 'AdoptSpaceCreator', spaceId, creatorUserId },
      context,
    );
    return { id: spaceId, position: result.position };
  }
}
