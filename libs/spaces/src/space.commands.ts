// Space commands and their handlers. Name and slug are unique across Spaces through claim streams.
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { CommandContext } from '#eventsourcing';
import { claimUnique, releaseUnique } from '#eventsourcing';
import { CommandRunner } from '#platform';
import { spaceDecider, type SpaceFields } from './space.decider.js';
import { spaceStreamId, type SpaceState } from './space.events.js';

export interface WriteResult {
  readonly id: string;
  readonly position: number;
}

export class CreateSpace {
  constructor(
    readonly spaceId: string,
    readonly fields: SpaceFields,
    readonly context: CommandContext,
  ) {}
}

export class ChangeSpace {
  constructor(
    readonly spaceId: string,
    readonly fields: Partial<SpaceFields>,
    readonly context: CommandContext,
  ) {}
}

export class DeleteSpace {
  constructor(
    readonly spaceId: string,
    readonly context: CommandContext,
  ) {}
}

type UniqueField = 'name' | 'slug';
const CLAIM_KIND: Record<UniqueField, string> = { name: 'space-name', slug: 'space-slug' };

/** Claims and releases of a Space's unique fields; a claim is stale once its Space no longer uses the value. */
class SpaceUniqueness {
  constructor(private readonly commands: CommandRunner) {}

  async claim(field: UniqueField, value: string, spaceId: string, context: CommandContext): Promise<void> {
    await claimUnique(
      this.commands.store,
      CLAIM_KIND[field],
      value,
      spaceId,
      async (holder) => {
        const { state } = await this.commands.load<SpaceState, never>(spaceStreamId(holder), spaceDecider);
        return state.status === 'active' && state[field].toLowerCase() === value.trim().toLowerCase();
      },
      context,
    ).catch((error: { code?: string; param?: string }) => {
      if (error.code === `${CLAIM_KIND[field]}_taken`)
        Object.assign(error, {
          code: `space_${field}_taken`,
          param: field,
          message: `a Space with ${field} '${value}' already exists`,
        });
      throw error;
    });
  }

  release(field: UniqueField, value: string, spaceId: string, context: CommandContext): Promise<void> {
    return releaseUnique(this.commands.store, CLAIM_KIND[field], value, spaceId, context);
  }
}

@CommandHandler(CreateSpace)
export class CreateSpaceHandler implements ICommandHandler<CreateSpace, WriteResult> {
  private readonly unique: SpaceUniqueness;
  constructor(private readonly commands: CommandRunner) {
    this.unique = new SpaceUniqueness(commands);
  }

  async execute({ spaceId, fields, context }: CreateSpace): Promise<WriteResult> {
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

@CommandHandler(ChangeSpace)
export class ChangeSpaceHandler implements ICommandHandler<ChangeSpace, WriteResult> {
  private readonly unique: SpaceUniqueness;
  constructor(private readonly commands: CommandRunner) {
    this.unique = new SpaceUniqueness(commands);
  }

  async execute({ spaceId, fields, context }: ChangeSpace): Promise<WriteResult> {
    const { state } = await this.commands.load<SpaceState, never>(spaceStreamId(spaceId), spaceDecider);
    spaceDecider.decide({ type: 'ChangeSpace', spaceId, ...fields }, state);
    const previous = state.status === 'active' ? state : null;
    const changed = (field: UniqueField) =>
      previous !== null &&
      fields[field] !== undefined &&
      fields[field].trim().toLowerCase() !== previous[field].toLowerCase();
    for (const field of ['name', 'slug'] as const)
      if (changed(field)) await this.unique.claim(field, fields[field]!, spaceId, context);
    const result = await this.commands.run(
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

@CommandHandler(DeleteSpace)
export class DeleteSpaceHandler implements ICommandHandler<DeleteSpace, WriteResult> {
  private readonly unique: SpaceUniqueness;
  constructor(private readonly commands: CommandRunner) {
    this.unique = new SpaceUniqueness(commands);
  }

  async execute({ spaceId, context }: DeleteSpace): Promise<WriteResult> {
    const { state } = await this.commands.load<SpaceState, never>(spaceStreamId(spaceId), spaceDecider);
    const result = await this.commands.run(
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

export const SPACE_COMMAND_HANDLERS = [CreateSpaceHandler, ChangeSpaceHandler, DeleteSpaceHandler];
