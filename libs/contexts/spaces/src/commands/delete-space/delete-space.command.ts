// Deleting a Space (admins and the key that created it); its Agents follow through their own commands (the
// Space-deletion process of the Agents context). Its name and slug are released.
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { AggregateRepository, type CommandContext, type WriteResult } from '#eventsourcing';
import { Requires, type Principal } from '#access';
import { spaceDecider } from '../../space.decider.js';
import { spaceStreamId, type SpaceState } from '../../space.events.js';
import { SpaceUniqueness } from '../../space-uniqueness.js';
import { SpaceResolver } from '../../space-resolver.js';

// A Space already gone is left to the decider (deleting it again is a no-op, an unknown id 404).
@Requires(SpaceResolver, (spaces, { spaceId, principal }: DeleteSpace) =>
  spaces.changeIfLive(spaceId, principal),
)
export class DeleteSpace extends Command<WriteResult> {
  constructor(
    readonly spaceId: string,
    readonly context: CommandContext,
    readonly principal: Principal,
  ) {
    super();
  }
}

@CommandHandler(DeleteSpace)
export class DeleteSpaceHandler implements ICommandHandler<DeleteSpace> {
  private readonly unique: SpaceUniqueness;
  constructor(private readonly aggregates: AggregateRepository) {
    this.unique = new SpaceUniqueness(aggregates);
  }

  async execute({ spaceId, context }: DeleteSpace): Promise<WriteResult> {
    const { state } = await this.aggregates.load<SpaceState, never>(spaceStreamId(spaceId), spaceDecider);
    const result = await this.aggregates.decide(
      spaceStreamId(spaceId),
      spaceDecider,
      { type: 'DeleteSpace', spaceId },
      context,
    );
    if (state.status === 'active') {
      await this.unique.release('name', state.name, spaceId, context);
      await this.unique.release('slug', state.slug, spaceId, context);
    }
    return { id: spaceId, position: result.position };
  }
}
