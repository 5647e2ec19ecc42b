// The one command-handling routine every context uses: load the stream, fold it, decide, append with the expected
// revision, and decide again on a concurrent write (bounded).
import {
  derivedEventId,
  newEventId,
  SYSTEM_ACTOR,
  WrongExpectedRevisionError,
  type Actor,
  type DomainEvent,
  type EventEnvelope,
  type NewEvent,
} from '../../kernel/src/index.js';
import type { EventStore } from '../../event-store/src/event-store.port.js';

/** A pure aggregate: `decide` returns events or throws a PlatformError; `evolve` never throws. */
export interface Decider<State, Command, Event extends DomainEvent> {
  readonly initialState: () => State;
  readonly evolve: (state: State, event: Event) => State;
  readonly decide: (command: Command, state: State) => readonly Event[];
}

/** Who asked and why: becomes the metadata of every event the command produces. */
export interface CommandContext {
  readonly actor: Actor;
  readonly correlationId: string;
  readonly causationId?: string | null;
  /** Deterministic event ids (process managers, idempotent retries); random time-ordered ids otherwise. */
  readonly eventId?: (index: number) => string;
  readonly now: () => Date;
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
  return events.map((event, index) => ({
    id: context.eventId ? context.eventId(index) : newEventId(),
    type: event.type,
    data: event.data,
    metadata: {
      correlationId: context.correlationId,
      causationId: context.causationId ?? null,
      actor: context.actor,
      occurredAt,
      schemaVersion: SCHEMA_VERSION,
    },
  }));
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

export async function handleCommand<State, Command, Event extends DomainEvent>(
  store: EventStore,
  streamId: string,
  decider: Decider<State, Command, Event>,
  command: Command,
  context: CommandContext,
  retries = 5,
  cache?: AggregateStateCache,
): Promise<CommandResult<Event>> {
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
