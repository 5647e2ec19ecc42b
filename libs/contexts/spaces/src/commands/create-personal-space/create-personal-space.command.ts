// Creating a user's private personal Space (the personal-space process, for the platform): its id and slug derive
// from the user, its slug is claimed like any Space's (so no shared Space takes it, nor it another's); its name is
// not (it is nobody else's to see). Nothing to do when it exists.
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { sha256 } from '#kernel';
import { AggregateRepository, type CommandContext, type WriteResult } from '#eventsourcing';
import { ask, Requires, type Principal } from '#access';
import { spaceDecider } from '../../space.decider.js';
import { spaceStreamId, type SpaceState } from '../../space.events.js';
import { SpaceUniqueness } from '../../space-uniqueness.js';

export const personalSpaceId = (userId: string): string => `spc_personal_${sha256(userId).slice(0, 24)}`;

@Requires(() => ask('platform.step', null, 'personal Spaces are created by the platform'))
export class CreatePersonalSpace extends Command<WriteResult> {
  constructor(
    readonly userId: string,
    readonly context: CommandContext,
    readonly principal: Principal,
  ) {
    super();
  }
}

@CommandHandler(CreatePersonalSpace)
export class CreatePersonalSpaceHandler implements ICommandHandler<CreatePersonalSpace> {
  private readonly unique: SpaceUniqueness;
  constructor(private readonly aggregates: AggregateRepository) {
    this.unique = new SpaceUniqueness(aggregates);
  }

  async execute({ userId, context }: CreatePersonalSpace): Promise<WriteResult> {
    const spaceId = personalSpaceId(userId);
    const { state } = await this.aggregates.load<SpaceState, never>(spaceStreamId(spaceId), spaceDecider);
    if (state.status !== 'absent') return { id: spaceId, position: 0 };
    // The claim is another stream's event: its ids must not be the Space's (a process's context derives them from
    // the cause and the index alone, so the claim takes indexes of its own).
    const claimContext: CommandContext = {
      ...context,
      ...(context.eventId ? { eventId: (index: number) => context.eventId!(index + 1000) } : {}),
    };
    const base = `personal-${sha256(userId).slice(0, 12)}`;
    const slug = await this.unique.claimDerivedSlug(base, spaceId, claimContext);
    const result = await this.aggregates.decide(
      spaceStreamId(spaceId),
      spaceDecider,
      { type: 'CreatePersonalSpace', spaceId, userId, name: 'Personal', slug },
      context,
    );
    return { id: spaceId, position: result.position };
  }
}
