// The one command-handling routine every context's AggregateRepository runs: load the stream (through a bounded cache of
// folded states), fold it, decide, append with the expected revision, and decide again on a concurrent write (bounded).
// Also the command's context (who, why, idempotency) that becomes every event's metadata, and the routine for a record
// of facts that needs no state (recordFacts).
import {
  derivedEventId,
  newEventId,
  newId,
  sha256,
  SYSTEM_ACTOR,
  WrongExpectedRevisionError,
  type Actor,
  type DomainEvent,
  type EventEnvelope,
  type NewEvent,
  type RequestSource,
} from '#kernel';
import type { EventStore } from '#event-store';
import type { Decider } from './decider.js';

/** Who asked and why: becomes the metadata of every event the command produces. */
export interface CommandContext {
  readonly actor: Actor;
  readonly correlationId: string;
  readonly causationId?: string | null;
  /** Deterministic event ids (process managers, idempotent retries); random time-ordered ids otherwise. */
  readonly eventId?: (index: number) => string;
  /**
   * Set for a request sent with an Idempotency-Key: its events' ids derive from this seed and their stream, so a
   * retry of a request whose command was appended before the process died finds it applied and answers its original
   * result, instead of applying it again (a second entity).
   */
  readonly request?: IdempotentRequest;
  readonly now: () => Date;
  /** The request's source address and user agent, carried into the events' metadata for the audit trail. */
  readonly source?: RequestSource;
  /**
   * Facts recorded in a batch on behalf of several requests (the gateway's model calls): each event's own id, the
   * correlation of the request it records and when it happened, by its index; the context's otherwise.
   */
  readonly perEvent?: (index: number) => EventOrigin;
}

/** Where one event of a batch comes from: its id, its request's correlation and its time. */
export interface EventOrigin {
  readonly id: string;
  readonly correlationId: string;
  readonly occurredAt: string;
}

/** An HTTP request sent with an Idempotency-Key: the seed its event ids derive from, and its commands so far. */
export interface IdempotentRequest {
  readonly seed: string;
  /** How many commands the request has sent to each stream: the nth command to a stream gets ids of its own. */
  readonly commands: Map<string, number>;
}

/**
 * The context of a command a process manager sends because of an event: the platform acts, in the cause's
 * correlation, and the event ids derive from the cause and the subject, so a replay of the cause appends nothing.
 */
export const causedBy = (cause: EventEnvelope, subject: string): CommandContext => ({
  actor: SYSTEM_ACTOR,
  correlationId: cause.metadata.correlationId,
  causationId: cause.id,
  eventId: (index: number) => derivedEventId(cause.id, subject, String(index)),
  now: () => new Date(),
});

export interface CommandResult<Event extends DomainEvent> {
  readonly events: readonly Event[];
  /** Global position of the last appended event; 0 when the command changed nothing. */
  readonly position: number;
  readonly revision: number | null;
}

export const SCHEMA_VERSION = 1;

export function toNewEvents<Event extends DomainEvent>(
  events: readonly Event[],
  context: CommandContext,
): NewEvent[] {
  const occurredAt = context.now().toISOString();
  return events.map((event, index) => {
    const origin = context.perEvent?.(index);
    return {
      id: origin?.id ?? (context.eventId ? context.eventId(index) : newEventId()),
      type: event.type,
      data: event.data,
      metadata: {
        correlationId: origin?.correlationId ?? context.correlationId,
        causationId: context.causationId ?? null,
        actor: context.actor,
        occurredAt: origin?.occurredAt ?? occurredAt,
        schemaVersion: SCHEMA_VERSION,
        ...(context.source ? { source: context.source } : {}),
      },
    };
  });
}

/**
 * Folded states by stream, bounded (least recently used out). A hit is never trusted blindly: the stream is read from
 * the cached revision on, so events appended by other processes are folded in. States are immutable (evolve returns
 * new objects), so sharing them is safe.
 */
export class AggregateStateCache {
  private readonly entries = new Map<
    string,
    { readonly evolve: unknown; readonly revision: number; readonly state: unknown }
  >();

  constructor(private readonly capacity = 10_000) {}

  get<State>(streamId: string, evolve: unknown): { revision: number; state: State } | null {
    const entry = this.entries.get(streamId);
    if (!entry || entry.evolve !== evolve) return null;
    this.entries.delete(streamId);
    this.entries.set(streamId, entry);
    return { revision: entry.revision, state: entry.state as State };
  }

  set(streamId: string, evolve: unknown, revision: number, state: unknown): void {
    this.entries.delete(streamId);
    this.entries.set(streamId, { evolve, revision, state });
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
  }
}

export async function loadState<State, Event extends DomainEvent>(
  store: EventStore,
  streamId: string,
  decider: Pick<Decider<State, never, Event>, 'initialState' | 'evolve'>,
  cache?: AggregateStateCache,
): Promise<{ state: State; revision: number | null }> {
  const cached = cache?.get<State>(streamId, decider.evolve);
  const stored = (await store.readStream(
    streamId,
    cached ? { fromRevision: cached.revision + 1 } : {},
  )) as EventEnvelope<Event['type'], Event['data']>[];
  let state = cached ? cached.state : decider.initialState();
  for (const event of stored) state = decider.evolve(state, { type: event.type, data: event.data } as Event);
  const revision = stored.length > 0 ? stored[stored.length - 1]!.revision : (cached?.revision ?? null);
  if (cache && revision !== null) cache.set(streamId, decider.evolve, revision, state);
  return { state, revision };
}

/**
 * The id of a new entity: random, except in a request sent with an Idempotency-Key, where it derives from the request
 * (the nth id of a kind it makes), so a retry after a crash names the same entity instead of creating a second one.
 */
export const newEntityId = (context: CommandContext, prefix: string): string => {
  const request = context.request;
  if (!request) return newId(prefix);
  const slot = `id:${prefix}`;
  const nth = request.commands.get(slot) ?? 0;
  request.commands.set(slot, nth + 1);
  return `${prefix}_${sha256(`${request.seed}\u0000${slot}\u0000${nth}`).slice(0, 32)}`;
};

/** Events read at a time while collecting an earlier run's events (a command rarely appends more than a few). */
const APPLIED_PAGE = 32;

/**
 * The events an earlier run of the same idempotent request appended to this stream, if it got that far: read from
 * its first event's (derived) id on, never the whole stream.
 */
async function alreadyApplied<Event extends DomainEvent>(
  store: EventStore,
  streamId: string,
  seed: string,
): Promise<CommandResult<Event> | null> {
  const idAt = (index: number) => derivedEventId(seed, streamId, String(index));
  let page = await store.readStreamFromEvent(streamId, idAt(0), APPLIED_PAGE);
  if (page.length === 0) return null;
  const applied: EventEnvelope[] = [];
  for (;;) {
    for (const event of page) {
      if (event.id !== idAt(applied.length)) break;
      applied.push(event);
    }
    // The page ended on one of the run's events: the run may go on past it.
    if (applied.length === 0 || page.length < APPLIED_PAGE || page.at(-1) !== applied.at(-1)) break;
    page = await store.readStream(streamId, {
      fromRevision: applied.at(-1)!.revision + 1,
      maxCount: APPLIED_PAGE,
    });
  }
  const last = applied.at(-1);
  if (!last) return null;
  return {
    events: applied.map((event) => ({ type: event.type, data: event.data }) as Event),
    position: last.position,
    revision: last.revision,
  };
}

export async function handleCommand<State, Command, Event extends DomainEvent>(
  store: EventStore,
  streamId: string,
  decider: Decider<State, Command, Event>,
  command: Command,
  given: CommandContext,
  retries = 5,
  cache?: AggregateStateCache,
): Promise<CommandResult<Event>> {
  const nth = given.request ? (given.request.commands.get(streamId) ?? 0) : 0;
  given.request?.commands.set(streamId, nth + 1);
  const seed = given.request ? `${given.request.seed}:${nth}` : undefined;
  const context: CommandContext = seed
    ? { ...given, eventId: (index) => derivedEventId(seed, streamId, String(index)) }
    : given;
  if (seed) {
    const applied = await alreadyApplied<Event>(store, streamId, seed);
    if (applied) return applied;
  }
  for (let attempt = 0; ; attempt++) {
    const { state, revision } = await loadState(store, streamId, decider, cache);
    const events = decider.decide(command, state);
    if (events.length === 0) return { events, position: 0, revision };
    try {
      const appended = await store.appendToStream(
        streamId,
        toNewEvents(events, context),
        revision === null ? 'no_stream' : revision,
      );
      cache?.set(streamId, decider.evolve, appended.nextRevision, events.reduce(decider.evolve, state));
      return { events, position: appended.position, revision: appended.nextRevision };
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError) || attempt >= retries) throw error;
    }
  }
}

/**
 * The routine for a record of facts, whose decider protects no invariant and so decides on its initial state (the
 * gateway's usage: a call happened): decide, then append at the stream's current revision, again on a concurrent
 * write. Only the revision is read, never the stream: folding a busy day's calls to record one more would cost more
 * than the call.
 */
export async function recordFacts<State, Command, Event extends DomainEvent>(
  store: EventStore,
  streamId: string,
  decider: Decider<State, Command, Event>,
  command: Command,
  context: CommandContext,
  retries = 5,
): Promise<CommandResult<Event>> {
  const events = decider.decide(command, decider.initialState());
  if (events.length === 0) return { events, position: 0, revision: await store.streamRevision(streamId) };
  const stored = toNewEvents(events, context);
  for (let attempt = 0; ; attempt++) {
    const revision = await store.streamRevision(streamId);
    try {
      const appended = await store.appendToStream(
        streamId,
        stored,
        revision === null ? 'no_stream' : revision,
      );
      return { events, position: appended.position, revision: appended.nextRevision };
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError) || attempt >= retries) throw error;
    }
  }
}

/**
 * The routine for a stream the caller has just named with a fresh random id (a stored response): decide on the
 * initial state and append expecting no stream, without reading it first. Should the stream exist after all (an id
 * used twice), the append is refused and the command goes the usual way (handleCommand: loaded, decided again). A
 * command of a request with an Idempotency-Key goes the usual way at once: its retry must find what it appended.
 */
export async function handleCreation<State, Command, Event extends DomainEvent>(
  store: EventStore,
  streamId: string,
  decider: Decider<State, Command, Event>,
  command: Command,
  context: CommandContext,
  retries = 5,
  cache?: AggregateStateCache,
): Promise<CommandResult<Event>> {
  const usual = () => handleCommand(store, streamId, decider, command, context, retries, cache);
  if (context.request) return usual();
  const state = decider.initialState();
  const events = decider.decide(command, state);
  if (events.length === 0) return usual();
  try {
    const appended = await store.appendToStream(streamId, toNewEvents(events, context), 'no_stream');
    cache?.set(streamId, decider.evolve, appended.nextRevision, events.reduce(decider.evolve, state));
    return { events, position: appended.position, revision: appended.nextRevision };
  } catch (error) {
    if (!(error instanceof WrongExpectedRevisionError)) throw error;
    return usual();
  }
}
