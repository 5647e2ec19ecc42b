// What a projector is: a named, versioned, idempotent function from an event to read-model writes. Process managers
// are projectors too: they keep their own state in collections and may send idempotent commands while projecting.
// `defineProjector` (and `eventHandlers` for process-manager classes) is the one way to write one: a handler per
// event type of a union, so the types it reads are derived from the handlers and a new event of the union is a
// compile error until the projector says what it does with it.
import type { DomainEvent, EventEnvelope } from '#kernel';
import type { CollectionSpec, Filter, FindOptions, Page, StoredDocument, WriteOp } from '#read-store';

export interface ProjectionContext {
  /** A document of this projector's own collections, as committed plus the writes pending in this batch. */
  get<T extends StoredDocument>(collection: string, id: string): Promise<T | null>;
  /**
   * A page of a collection of this projector's own, as committed plus the writes pending in this batch: what it
   * reads page by page instead of keeping an unbounded list in one document. The committed documents come in the
   * store's order (`sort` as in the store, on their committed values); documents only this batch created come at the
   * end of the last page.
   */
  find<T extends StoredDocument>(collection: string, filter: Filter, options?: FindOptions): Promise<Page<T>>;
}

export interface Projector {
  /** Keys the checkpoint and the registry record: never rename. */
  readonly name: string;
  /** Bump when the projection logic changes: a new generation is built beside the live one and switched to. */
  readonly version: number;
  readonly collections: readonly CollectionSpec[];
  /**
   * Event types this projector reads; a batch without any is skipped (its position is stored lazily). `['*']`
   * (EVERY_EVENT): every event of the log, whatever its stream (an all-streams read model: the audit trail's).
   */
  readonly eventTypes: readonly string[];
  project(event: EventEnvelope, context: ProjectionContext): Promise<readonly WriteOp[]> | readonly WriteOp[];
}

export const PROJECTORS = Symbol('PROJECTORS');

/** The `eventTypes` of a projector that reads every event of the log. */
export const EVERY_EVENT: readonly string[] = ['*'];

/** Which event types a projector reads (`has`), as the runner, the waiter and the health check ask it. */
export interface EventTypeFilter {
  has(type: string): boolean;
}

/** The event types a projector reads: its list, or every type when it reads EVERY_EVENT. */
export const eventTypeFilter = (eventTypes: readonly string[]): EventTypeFilter =>
  eventTypes.includes('*') ? { has: () => true } : new Set(eventTypes);

/** The stored form of one event of a union: its literal type, its data, and the envelope's metadata and place. */
export type EnvelopeOf<E extends DomainEvent, T extends E['type'] = E['type']> =
  E extends DomainEvent<T> ? EventEnvelope<E['type'], E['data']> : never;

type Writes = Promise<readonly WriteOp[]> | readonly WriteOp[];

/**
 * One entry per event type of the union E: the handler (what the projector writes for it, `[]` for nothing), or
 * null when the projector does not read that event at all (it only advances the checkpoint past it).
 */
export type EventHandlers<E extends DomainEvent> = {
  readonly [T in E['type']]: ((event: EnvelopeOf<E, T>, context: ProjectionContext) => Writes) | null;
};

/** The part of a projector that reads events: `eventTypes` are the handlers' keys, `project` dispatches to them. */
export function eventHandlers<E extends DomainEvent>(
  handlers: EventHandlers<E>,
): Pick<Projector, 'eventTypes' | 'project'> {
  const byType: Record<string, ((event: EventEnvelope, context: ProjectionContext) => Writes) | null> = {};
  Object.assign(byType, handlers);
  return {
    eventTypes: Object.keys(byType).filter((type) => byType[type] !== null),
    project: (event, context) => byType[event.type]?.(event, context) ?? [],
  };
}

/** A read-model projector: name, version, collections and a handler per event type of the union E. */
export function defineProjector<E extends DomainEvent>(spec: {
  readonly name: string;
  readonly version: number;
  readonly collections: readonly CollectionSpec[];
  readonly on: EventHandlers<E>;
}): Projector {
  return { name: spec.name, version: spec.version, collections: spec.collections, ...eventHandlers(spec.on) };
}

/**
 * The contract of a read model, owned by the context that serves it: the collection (name and indexes), the
 * projection that maintains it (what a write waits for) and, as a type parameter, the view its documents have.
 */
export interface ReadModel<View extends StoredDocument = StoredDocument> extends CollectionSpec {
  readonly projection: string;
  /** Never set: carries the view type. */
  readonly view?: View;
}

export const defineReadModel = <View extends StoredDocument>(
  spec: Omit<ReadModel<View>, 'view'>,
): ReadModel<View> => spec;
