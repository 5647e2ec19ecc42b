// Creating a Space: its name and slug are claimed first (unique across Spaces), then the Space is created.
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { z } from 'zod';
import { newEntityId, type CommandContext } from '#eventsourcing';
import { CommandRunner, type WriteResult } from '#platform';
import { DEFAULT_SPACE_COLOR, spaceDecider } from '../../space.decider.js';
import { spaceStreamId } from '../../space.events.js';
import { slugify } from '../../space.schemas.js';
import { SpaceUniqueness } from '../../space-uniqueness.js';
import type { CreateSpaceBody } from './create-space.schema.js';

export class CreateSpace extends Command<WriteResult> {
  constructor(
    readonly input: z.output<typeof CreateSpaceBody>,
    readonly context: CommandContext,
  ) {
    super();
  }
}

@CommandHandler(CreateSpace)
export class CreateSpaceHandler implements ICommandHandler<CreateSpace> {
  private readonly unique: SpaceUniqueness;
  constructor(private readonly commands: CommandRunner) {
    this.unique = new SpaceUniqueness(commands);
  }

  async execute({ input, context }: CreateSpace): Promise<WriteResult> {
    const spaceId = newEntityId(context, 'spc');
    const fields = {
      name: input.name,
      slug: input.slug ?? slugify(input.name),
      description: input.description ?? '',
      color: input.color ?? DEFAULT_SPACE_COLOR,
    };
    // Validate before claiming, so a bad request leaves no claim behind.
    spaceDecider.decide({ type: 'CreateSpace', spaceId, ...fields }, spaceDecider.initialState());
    await this.unique.claim('name', fields.name, spaceId, context);
    await this.unique.claim('slug', fields.slug, spaceId, context);
    const result = await this.commands.run(
      spaceStreamId(spaceId),
      spaceDecider,
      { type: 'CreateSpace', spaceId, ...fields },
      context,
    );
    return { id: spaceId, position: result.position };
  }
}
