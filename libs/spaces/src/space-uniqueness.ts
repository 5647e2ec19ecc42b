// Name and slug are unique across Spaces through claim streams: claims and releases of a Space's unique fields.
import type { CommandContext } from '#eventsourcing';
import { claimUnique, releaseUnique } from '#eventsourcing';
import { CommandRunner } from '#platform';
import { spaceDecider } from './space.decider.js';
import { spaceStreamId, type SpaceState } from './space.events.js';

export type UniqueField = 'name' | 'slug';
const CLAIM_KIND: Record<UniqueField, string> = { name: 'space-name', slug: 'space-slug' };

/** Claims and releases of a Space's unique fields; a claim is stale once its Space no longer uses the value. */
export class SpaceUniqueness {
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
