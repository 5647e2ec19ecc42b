// The event store port: the only source of truth. Two adapters implement it (SQLite embedded, KurrentDB production)
// and one contract suite (event-store.contract.ts) holds them to the same behaviour.
import type { EventEnvelope, NewEvent } from '#kernel';

/** What the writer believes about the stream: anything, no stream yet, a stream exists, or an exact revision. */
export type ExpectedRevision = 'any' | 'no_stream' | 'stream_exists' | number;

export interface AppendResult {
  /** Revision of the last event of the batch in its stream. */
  readonly nextRevision: number;
  /** Global position of the last event of the batch. */
  readonly position: number;
  /** Global positions of every event of the batch, in order. */
  readonly positions: readonly number[];
}

export interface ReadStreamOptions {
  readonly direction?: 'forwards' | 'backwards';
  /** Inclusive. Defaults to the start (forwards) or the end (backwards). */
  readonly fromRevision?: number;
  readonly maxCount?: number;
}

export interface ReadAllOptions {
  /** Exclusive: events strictly after this position. Undefined reads from the start of the log. */
  readonly after?: number;
  readonly maxCount?: number;
}

/** Where an event stands in the log, and its type: what a projector's lag is counted from. */
export interface EventHeader {
  readonly position: number;
  readonly type: string;
}

export interface SubscribeOptions {
  /** Exclusive checkpoint; undefined starts at the beginning of the log. */
  readonly after?: number;
  /** Called with consecutive batches in log order; the next batch waits until this one's promise settles. */
  readonly onEvents: (events: readonly EventEnvelope[]) => Promise<void>;
  /** Called once when the subscription has read everything stored when it started, and turns live. */
  readonly onCaughtUp?: () => void;
  /** A failure of onEvents, onPassed or the store ends the subscription and is reported here. */
  readonly onError?: (error: unknown) => void;
  readonly batchSize?: number;
  /**
   * The event types the subscriber reads, when it reads only some (a projector's). A store may then pass over events
   * it knows to hold none of them without reading them: it tells onPassed the position it has passed to instead of
   * giving onEvents a batch. Batches still hold every event of their range; the subscriber skips the others itself.
   */
  readonly eventTypes?: { has(type: string): boolean };
  /**
   * Every event up to this position, after the last batch or position given, holds none of `eventTypes`. Called in
   * log order with the batches, never while onEvents runs, and synchronously (it should only note the position).
   */
  readonly onPassed?: (position: number) => void;
}

export interface Subscription {
  stop(): Promise<void>;
}

export interface EventStore {
  /**
   * Appends a batch atomically. A batch whose event ids are all already stored in this stream is a no-op that
   * returns the original positions (durable idempotency). Throws WrongExpectedRevisionError on a mismatch.
   */
  appendToStream(
    streamId: string,
    events: readonly NewEvent[],
    expected: ExpectedRevision,
  ): Promise<AppendResult>;
  /** Events of one stream; an unknown stream reads as empty. */
  readStream(streamId: string, options?: ReadStreamOptions): Promise<EventEnvelope[]>;
  /**
   * The events of a stream from the one with id `eventId` on, oldest first, at most `maxCount`; empty when the stream
   * holds no event with that id. Finds an idempotent request's events without reading the whole stream where the
   * store can look an event id up.
   */
  readStreamFromEvent(streamId: string, eventId: string, maxCount: number): Promise<EventEnvelope[]>;
  /** Current revision of a stream, or null when it does not exist. */
  streamRevision(streamId: string): Promise<number | null>;
  /** The global log, in order, after a position. */
  readAll(options?: ReadAllOptions): Promise<EventEnvelope[]>;
  /**
   * The same events as readAll, as headers only: a store that can leaves their data and metadata unread (/health
   * counts a projector's lag over the events behind it, which may be megabytes of sealed messages).
   */
  readAllHeaders(options?: ReadAllOptions): Promise<EventHeader[]>;
  /** Position of the newest event in the log (0 when empty). */
  headPosition(): Promise<number>;
  /** A catch-up subscription to the global log that turns live, without gaps or duplicates. */
  subscribeToAll(options: SubscribeOptions): Subscription;
  close(): Promise<void>;
}

export const EVENT_STORE = Symbol('EVENT_STORE');

export const describeExpected = (expected: ExpectedRevision): string =>
  typeof expected === 'number' ? `revision ${expected}` : expected;
