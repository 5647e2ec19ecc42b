// Name and slug are unique across Spaces through claim streams: claims and releases of a Space's unique fields.
// Names stay unique across the instance (the spec's "unique display name"; admins see every Space), so a name in use
// cannot be taken again. What a conflict tells the caller depends on whether it may see the Space holding the value:
// one that may gets 409 `space_<field>_taken`; any other 409 `space_<field>_unavailable`, which names no Space, gives
// no id and says nothing of the holder (a Space it was told does not exist is not confirmed by it). Neither answer
// carries the holder's id. A slug the caller did not send is derived so that it never conflicts (see create-space).
import { ConflictError, sha256 } from '#kernel';
import type { CommandContext } from '#eventsourcing';
import { claimStreamId, claimUnique, releaseUnique } from '#eventsourcing';
import { AggregateRepository } from '#eventsourcing';
import { spaceDecider } from './space.decider.js';
import { spaceStreamId, type SpaceState } from './space.events.js';

export type UniqueField = 'name' | 'slug';
const CLAIM_KIND: Record<UniqueField, string> = { name: 'space-name', slug: 'space-slug' };

/** Whether the caller may see the Space with this id (it is then told which value conflicts). */
export type MaySee = (spaceId: string) => Promise<boolean>;

/** Claims and releases of a Space's unique fields; a claim is stale once its Space no longer uses the value. */
export class SpaceUniqueness {
  constructor(private readonly aggregates: AggregateRepository) {}

  async claim(
    field: UniqueField,
    value: string,
    spaceId: string,
    context: CommandContext,
    maySee: MaySee,
  ): Promise<void> {
    try {
      await claimUnique(
        this.aggregates.store,
        CLAIM_KIND[field],
        value,
        spaceId,
        async (holder) => this.uses(holder, field, value),
        context,
      );
    } catch (error) {
      if ((error as { code?: string }).code !== `${CLAIM_KIND[field]}_taken`) throw error;
      const holder = await this.holder(field, value);
      throw holder !== null && (await maySee(holder))
        ? new ConflictError(`space_${field}_taken`, `a Space with ${field} '${value}' already exists`, field)
        : new ConflictError(
            `space_${field}_unavailable`,
            `the ${field} '${value}' is not available on this instance (${field}s are unique across it): choose another`,
            field,
          );
    }
  }

  /**
   * Claims `base`, or when it is taken, `base` with a suffix derived from the Space's id (so a retried request derives
   * the same one): for a slug the client did not send, whose conflict it did not cause. Returns the slug claimed.
   */
  async claimDerivedSlug(base: string, spaceId: string, context: CommandContext): Promise<string> {
    const candidates = [base, `${base.slice(0, 71).replace(/-+$/, '')}-${sha256(spaceId).slice(0, 8)}`];
    for (const [index, candidate] of candidates.entries())
      try {
        await this.claim('slug', candidate, spaceId, context, async () => false);
        return candidate;
      } catch (error) {
        const code = (error as { code?: string }).code;
        if (code !== 'space_slug_unavailable' || index === candidates.length - 1) throw error;
      }
    throw new Error('unreachable');
  }

  release(field: UniqueField, value: string, spaceId: string, context: CommandContext): Promise<void> {
    return releaseUnique(this.aggregates.store, CLAIM_KIND[field], value, spaceId, context);
  }

  private async uses(holder: string, field: UniqueField, value: string): Promise<boolean> {
    const { state } = await this.aggregates.load<SpaceState, never>(spaceStreamId(holder), spaceDecider);
    return state.status === 'active' && state[field].toLowerCase() === value.trim().toLowerCase();
  }

  /** The Space holding the value's claim, if any. */
  private async holder(field: UniqueField, value: string): Promise<string | null> {
    const [last] = await this.aggregates.store.readStream(claimStreamId(CLAIM_KIND[field], value), {
      direction: 'backwards',
      maxCount: 1,
    });
    return last?.type === 'UniqueValueClaimed' ? ((last.data as { ownerId?: string }).ownerId ?? null) : null;
  }
}
