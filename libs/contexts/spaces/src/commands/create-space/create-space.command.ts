// Creating a Space (its creator becomes its owner): its name and slug are claimed first (unique across Spaces), then the Space is created. A slug the
// client did not send is derived from the name, and made unique when that one is taken: the client did not cause it.
import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { z } from 'zod';
import { AggregateRepository, newEntityId, type CommandContext, type WriteResult } from '#eventsourcing';
import { Requires, userIdOf, type Principal } from '#access';
import { READ_STORE, type ReadStore } from '#read-store';
import { DEFAULT_SPACE_COLOR, spaceDecider } from '../../space.decider.js';
import { spaceStreamId } from '../../space.events.js';
import { slugify } from '../../space.schemas.js';
import { SpaceUniqueness } from '../../space-uniqueness.js';
import { SpaceResolver } from '../../space-resolver.js';
import { maySeeSpace, SpaceGrants } from '../../space-visibility.js';
import type { CreateSpaceBody } from './create-space.schema.js';

@Requires(SpaceResolver, (spaces) => spaces.create())
export class CreateSpace extends Command<WriteResult> {
  constructor(
    readonly input: z.output<typeof CreateSpaceBody>,
    readonly context: CommandContext,
    /** Who creates it; its visibility decides what a conflict tells (see SpaceUniqueness). */
    readonly principal: Principal,
  ) {
    super();
  }
}

@CommandHandler(CreateSpace)
export class CreateSpaceHandler implements ICommandHandler<CreateSpace> {
  private readonly unique: SpaceUniqueness;
  constructor(
    private readonly aggregates: AggregateRepository,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    private readonly grants: SpaceGrants,
  ) {
    this.unique = new SpaceUniqueness(aggregates);
  }

  async execute({ input, context, principal }: CreateSpace): Promise<WriteResult> {
    const spaceId = newEntityId(context, 'spc');
    const fields = {
      name: input.name,
      slug: input.slug ?? slugify(input.name),
      description: input.description ?? '',
      color: input.color ?? DEFAULT_SPACE_COLOR,
    };
    // Validate before claiming, so a bad request leaves no claim behind.
    spaceDecider.decide({ type: 'CreateSpace', spaceId, ...fields }, spaceDecider.initialState());
    const maySee = (holder: string) => maySeeSpace(this.readStore, this.grants, holder, principal);
    await this.unique.claim('name', fields.name, spaceId, context, maySee);
    let slug = fields.slug;
    if (input.slug !== undefined) await this.unique.claim('slug', slug, spaceId, context, maySee);
    else slug = await this.unique.claimDerivedSlug(slug, spaceId, context);
    const result = await this.aggregates.decide(
      spaceStreamId(spaceId),
      spaceDecider,
      // Its creator is its first owner (a user: signed in, or through a key of theirs).
      { type: 'CreateSpace', spaceId, ...fields, slug, ownerUserId: userIdOf(principal) },
      context,
    );
    return { id: spaceId, position: result.position };
  }
}
