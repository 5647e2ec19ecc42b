// Changing a Space (admins and the key that created it): a new name or slug is claimed before the change and the
// old one released after.
import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { AggregateRepository, type CommandContext, type WriteResult } from '#eventsourcing';
import { Requires, type Principal } from '#access';
import { READ_STORE, type ReadStore } from '#read-store';
import type { SpaceFields } from '../../space.decider.js';
import { spaceDecider } from '../../space.decider.js';
import { spaceStreamId, type SpaceState } from '../../space.events.js';
import { SpaceUniqueness, type UniqueField } from '../../space-uniqueness.js';
import { SpaceResolver } from '../../space-resolver.js';
import { maySeeSpace, SpaceGrants } from '../../space-visibility.js';

@Requires(SpaceResolver, (spaces, { spaceId, principal }: ChangeSpace) => spaces.change(spaceId, principal))
export class ChangeSpace extends Command<WriteResult> {
  constructor(
    readonly spaceId: string,
    readonly fields: Partial<SpaceFields>,
    readonly context: CommandContext,
    readonly principal: Principal,
  ) {
    super();
  }
}

@CommandHandler(ChangeSpace)
export class ChangeSpaceHandler implements ICommandHandler<ChangeSpace> {
  private readonly unique: SpaceUniqueness;
  constructor(
    private readonly aggregates: AggregateRepository,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    private readonly grants: SpaceGrants,
  ) {
    this.unique = new SpaceUniqueness(aggregates);
  }

  async execute({ spaceId, fields, context, principal }: ChangeSpace): Promise<WriteResult> {
    const { state } = await this.aggregates.load<SpaceState, never>(spaceStreamId(spaceId), spaceDecider);
    spaceDecider.decide({ type: 'ChangeSpace', spaceId, ...fields }, state);
    const previous = state.status === 'active' ? state : null;
    const changed = (field: UniqueField) =>
      previous !== null &&
      fields[field] !== undefined &&
      fields[field].trim().toLowerCase() !== previous[field].toLowerCase();
    const maySee = (holder: string) => maySeeSpace(this.readStore, this.grants, holder, principal);
    for (const field of ['name', 'slug'] as const)
      if (changed(field)) await this.unique.claim(field, fields[field]!, spaceId, context, maySee);
    const result = await this.aggregates.decide(
      spaceStreamId(spaceId),
      spaceDecider,
      { type: 'ChangeSpace', spaceId, ...fields },
      context,
    );
    for (const field of ['name', 'slug'] as const)
      if (changed(field)) await this.unique.release(field, previous![field], spaceId, context);
    return { id: spaceId, position: result.position };
  }
}
