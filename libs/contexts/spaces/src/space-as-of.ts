// A Space as it was at a time, folded from its stream with the decider's evolve: what a read `asOf` answers, and what
// the policy reads of a Space deleted since.
import type { EventStore } from '#event-store';
import { loadStateAsOf } from '#eventsourcing';
import { evolveSpace, initialSpaceState, spaceStreamId, type SpaceState } from './space.events.js';
import type { SpaceView } from './spaces.read-model.js';

/** The Space as of a time; null when it did not exist then (or was deleted by then). */
export async function spaceAsOf(store: EventStore, spaceId: string, asOf: Date): Promise<SpaceView | null> {
  const { state, firstAt, lastAt, events } = await loadStateAsOf<
    SpaceState,
    Parameters<typeof evolveSpace>[1]
  >(store, spaceStreamId(spaceId), asOf, initialSpaceState(), evolveSpace);
  if (state.status !== 'active') return null;
  const creator = events[0]!.metadata.actor;
  return {
    id: state.spaceId,
    name: state.name,
    slug: state.slug,
    description: state.description,
    color: state.color,
    createdByApiKeyId: creator.kind === 'apiKey' ? creator.id : null,
    createdByUserId: creator.kind === 'user' ? creator.id : null,
    ...(state.members ? { members: state.members } : {}),
    ...(state.personalOf ? { personalOf: state.personalOf } : {}),
    createdAt: firstAt!,
    updatedAt: lastAt!,
  };
}
