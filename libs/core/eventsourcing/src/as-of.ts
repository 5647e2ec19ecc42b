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

export interface StreamsAsOfOptions {
  /** Only streams whose id starts with this (`document-`, `skill-`). */
  readonly streamPrefix: string;
  /** Only events of these types (the aggregate's union). */
  readonly eventTypes: readonly string[];
}

const SCAN_BATCH = 1000;

/**
 * Every stream of one aggregate type folded up to `asOf`, when the streams to fold are not known by id (the
 * documents an Agent reached then: the read models keep no deleted entity). One pass over the log in order, linear
 * in its size; events after `asOf` are skipped (positions are append order, occurred-at the writer's clock, so the
 * pass does not stop early). Streams with no event up to `asOf` are absent from the answer.
 */
export async function foldStreamsAsOf<State, Event extends DomainEvent>(
  store: EventStore,
  options: StreamsAsOfOptions,
  asOf: Date,
  initial: () => State,
  /** The decider's evolve; the envelope is there for folds that keep times (a view's createdAt). */
  evolve: (state: State, event: Event, envelope: EventEnvelope) => State,
): Promise<Map<string, FoldedAsOf<State>>> {
  const limit = asOf.getTime();
  const types = new Set(options.eventTypes);
  const folded = new Map<string, { state: State; firstAt: string; lastAt: string }>();
  let after: number | undefined;
  for (;;) {
    const batch = await store.readAll({ after, maxCount: SCAN_BATCH });
    for (const event of batch) {
      if (!types.has(event.type) || !event.streamId.startsWith(options.streamPrefix)) continue;
      if (Date.parse(event.metadata.occurredAt) > limit) continue;
      const known = folded.get(event.streamId);
      const state = evolve(known?.state ?? initial(), { type: event.type, data: event.data } as Event, event);
      folded.set(event.streamId, {
        state,
        firstAt: known?.firstAt ?? event.metadata.occurredAt,
        lastAt: event.metadata.occurredAt,
      });
    }
    if (batch.length < SCAN_BATCH) return folded;
    after = batch.at(-1)!.position;
  }
}
