// Time travel: an aggregate's state as of a past time, folded from its stream with the decider's own evolve (a pure
// fold, no read model). Events are applied while their occurred-at is at or before the time.
import type { DomainEvent, EventEnvelope } from '#kernel';
import type { EventStore } from '#event-store';

export interface FoldedAsOf<State> {
  readonly state: State;
  /** Occurred-at of the first and of the last event applied (null when none was). */
  readonly firstAt: string | null;
  readonly lastAt: string | null;
}

/** Folds `events` (one stream, in order) up to `asOf` inclusive. */
export function foldAsOf<State, Event extends DomainEvent>(
  events: readonly EventEnvelope[],
  asOf: Date,
  initial: State,
  evolve: (state: State, event: Event) => State,
): FoldedAsOf<State> {
  const limit = asOf.getTime();
  let state = initial;
  let firstAt: string | null = null;
  let lastAt: string | null = null;
  for (const event of events) {
    if (Date.parse(event.metadata.occurredAt) > limit) break;
    state = evolve(state, { type: event.type, data: event.data } as Event);
    firstAt ??= event.metadata.occurredAt;
    lastAt = event.metadata.occurredAt;
  }
  return { state, firstAt, lastAt };
}

/** Reads a stream and folds it up to `asOf`. */
export async function loadStateAsOf<State, Event extends DomainEvent>(
  store: EventStore,
  streamId: string,
  asOf: Date,
  initial: State,
  evolve: (state: State, event: Event) => State,
): Promise<FoldedAsOf<State> & { readonly events: readonly EventEnvelope[] }> {
  const events = await store.readStream(streamId);
  return { ...foldAsOf(events, asOf, initial, evolve), events };
}
