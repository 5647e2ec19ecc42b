// Production event store: KurrentDB through its official gRPC client. KurrentDB owns streams, revisions and the
// global log ($all); this adapter adds what the port promises beyond it: durable idempotency (not KurrentDB's
// time-bounded duplicate check), one numeric position per event, and system events kept out of the log we expose.
//
// Positions. A single-stream append is written as self-committed prepare records (one per event, flagged
// IsCommitted), and KurrentDB reports such an event's position as commit = prepare = the record's own byte offset in
// the transaction log: $all reads (AllReader), stream reads (ResolvedEvent.CalculatePosition) and live subscriptions
// (IndexCommitter's EventCommitted) all agree. So the events of one append do NOT share a commit position; each has
// its own, increasing along $all, and the commit position alone is a complete position: {commit: p, prepare: p}
// addresses exactly that event, which makes it usable as an exclusive `after` (reads from it are inclusive, so the
// event at `after` is dropped). Only the legacy explicit transactions of the TCP API shared one commit record among
// several events; the gRPC API cannot write them, so a log written through this adapter never holds one.
// The commit position is a byte offset: it stays below 2^53 (8 PiB of log), and toLogPosition checks it.
//
// Idempotency. KurrentDB only recognises a re-sent batch when it carries the expected revision of its first append,
// or, with `any`, while its ids are still in a bounded in-memory cache. The port promises more: a batch whose ids are all stored in the stream
// is a no-op returning the original positions, whenever it is re-sent. Streams are bounded by design, so the adapter
// looks the ids up by reading the stream backwards (bounded) whenever they may be stored: before an `any` or
// `stream_exists` append (KurrentDB would otherwise append them again once its cache forgot them) and after an append
// rejected with a wrong expected version (a retry carrying its first attempt's, now stale, revision). An exact
// revision append is never preceded by a read: for a single event the happy path is the append alone, and a larger
// batch adds one read of just its own revisions, because the append reports the position of its last event only.
// Over 300 lines on purpose: positions, idempotency and subscriptions (explained above) depend on each other;
// the port's contract is met in one place.
import {
  ANY,
  BACKWARDS,
  END,
  ErrorType,
  FORWARDS,
  KurrentDBClient,
  NO_STREAM,
  START,
  STREAM_EXISTS,
  StreamNotFoundError,
  WrongExpectedVersionError,
  excludeSystemEvents,
  jsonEvent,
  type AllStreamResolvedEvent,
  type AppendResult as KurrentAppendResult,
  type AppendStreamState,
  type EventData,
  type JSONType,
  type Position as KurrentPosition,
  type ReadPosition,
  type ReadRevision,
  type RecordedEvent,
} from '@kurrent/kurrentdb-client';
import {
  IdempotencyMismatchError,
  WrongExpectedRevisionError,
  type EventEnvelope,
  type EventMetadata,
  type NewEvent,
} from '#kernel';
import {
  describeExpected,
  type AppendResult,
  type EventStore,
  type ExpectedRevision,
  type EventHeader,
  type ReadAllOptions,
  type ReadStreamOptions,
  type SubscribeOptions,
  type Subscription,
} from '../event-store.port.js';
import { UpcasterRegistry } from '../upcasters.js';

export interface KurrentDbEventStoreOptions {
  /** e.g. kurrentdb://localhost:2113?tls=false */
  readonly connectionString: string;
  readonly upcasters?: UpcasterRegistry;
}

/** How far back the idempotency lookup reads a stream; streams are kept short by design, so this is a safety net. */
const IDEMPOTENCY_SCAN_LIMIT = 10_000;
/** Page size when readAll or headPosition has to skip events of system streams client-side. */
const READ_ALL_PAGE = 1_000;
const DEFAULT_BATCH_SIZE = 500;

export class KurrentDbEventStore implements EventStore {
  private readonly client: KurrentDBClient;
  private readonly upcasters: UpcasterRegistry;
  private readonly subscriptions = new Set<Subscription>();

  constructor(options: KurrentDbEventStoreOptions) {
    // The client parses the string here but connects on the first call, so constructing never touches the network.
    this.client = KurrentDBClient.connectionString(options.connectionString);
    this.upcasters = options.upcasters ?? new UpcasterRegistry();
  }

  async appendToStream(
    streamId: string,
    events: readonly NewEvent[],
    expected: ExpectedRevision,
  ): Promise<AppendResult> {
    const streamState = toStreamState(expected);
    if (events.length === 0) return this.appendNothing(streamId, expected);
    if (expected === 'any' || expected === 'stream_exists') {
      const stored = await this.alreadyStored(streamId, events);
      if (stored) return stored;
    }
    let result: KurrentAppendResult;
    try {
      result = await this.client.appendToStream(streamId, events.map(toEventData), { streamState });
    } catch (error) {
      if (!isWrongExpectedVersion(error)) throw error;
      // KurrentDB also answers a wrong expected version when part of the ids are stored (corrupted idempotency).
      const stored = await this.alreadyStored(streamId, events);
      if (stored) return stored;
      throw toWrongExpectedRevision(streamId, expected, error);
    }
    const nextRevision = Number(result.nextExpectedRevision);
    const positions = await this.appendedPositions(streamId, events, result);
    return { nextRevision, position: positions[positions.length - 1]!, positions };
  }

  /**
   * KurrentDB answers an append with the position of its last event (also for a batch it recognised as a retry),
   * which is every position of a single-event batch. The earlier events of a larger batch sit at offsets only the
   * log knows, so those are read back: exactly the batch's revisions, from the stream index.
   */
  private async appendedPositions(
    streamId: string,
    events: readonly NewEvent[],
    result: KurrentAppendResult,
  ): Promise<number[]> {
    if (events.length === 1 && result.position && result.position.commit >= 0n) {
      return [toLogPosition(result.position.commit)];
    }
    const recorded = (
      await this.readRecorded(streamId, {
        direction: BACKWARDS,
        fromRevision: result.nextExpectedRevision,
        maxCount: events.length,
      })
    ).reverse();
    const isBatch =
      recorded.length === events.length &&
      recorded.every((event, index) => sameId(event.id, events[index]!.id));
    if (!isBatch) {
      throw new Error(
        `KurrentDB stream '${streamId}' does not hold the appended batch at revision ${result.nextExpectedRevision}`,
      );
    }
    return recorded.map(positionOf);
  }

  /** An empty batch stores nothing but still checks the expected state, as the embedded adapter does. */
  private async appendNothing(streamId: string, expected: ExpectedRevision): Promise<AppendResult> {
    const current = await this.streamRevision(streamId);
    const ok =
      expected === 'any' ||
      (expected === 'no_stream' && current === null) ||
      (expected === 'stream_exists' && current !== null) ||
      (typeof expected === 'number' && current === expected);
    if (!ok) {
      throw new WrongExpectedRevisionError(streamId, describeExpected(expected), current ?? 'no_stream');
    }
    return { nextRevision: current ?? -1, position: await this.headPosition(), positions: [] };
  }

  /** The original result when every id of the batch is stored in the stream, in order; null when none is. */
  private async alreadyStored(streamId: string, events: readonly NewEvent[]): Promise<AppendResult | null> {
    const wanted = new Set(events.map((event) => event.id.toLowerCase()));
    const found: RecordedEvent[] = [];
    try {
      for await (const resolved of this.client.readStream(streamId, {
        direction: BACKWARDS,
        fromRevision: END,
        maxCount: IDEMPOTENCY_SCAN_LIMIT,
      })) {
        const event = resolved.event;
        if (!event || !wanted.has(event.id.toLowerCase())) continue;
        found.push(event);
        if (found.length === wanted.size) break;
      }
    } catch (error) {
      if (isStreamNotFound(error)) return null;
      throw error;
    }
    if (found.length === 0) return null;
    found.reverse();
    const sameBatch =
      found.length === events.length && found.every((event, index) => sameId(event.id, events[index]!.id));
    if (!sameBatch) throw new IdempotencyMismatchError(streamId);
    const positions = found.map(positionOf);
    return {
      nextRevision: Number(found[found.length - 1]!.revision),
      position: positions.at(-1)!,
      positions,
    };
  }

  async readStream(streamId: string, options: ReadStreamOptions = {}): Promise<EventEnvelope[]> {
    if (options.maxCount !== undefined && options.maxCount <= 0) return [];
    const backwards = options.direction === 'backwards';
    const fromRevision: ReadRevision =
      options.fromRevision !== undefined ? BigInt(options.fromRevision) : backwards ? END : START;
    const recorded = await this.readRecorded(streamId, {
      direction: backwards ? BACKWARDS : FORWARDS,
      fromRevision,
      maxCount: options.maxCount ?? Number.MAX_SAFE_INTEGER,
    });
    return recorded.map((event) => this.toEnvelope(event));
  }

  async readStreamFromEvent(streamId: string, eventId: string, maxCount: number): Promise<EventEnvelope[]> {
    if (maxCount <= 0) return [];
    // KurrentDB indexes no event ids: the stream is read backwards (a retry is most often of a recent request),
    // keeping the newest events seen, until the id turns up.
    const after: RecordedEvent[] = [];
    try {
      for await (const resolved of this.client.readStream(streamId, {
        direction: BACKWARDS,
        fromRevision: END,
      })) {
        const event = resolved.event;
        if (!event) continue;
        if (sameId(event.id, eventId))
          return [event, ...after.reverse()].slice(0, maxCount).map((found) => this.toEnvelope(found));
        after.push(event);
        if (after.length >= maxCount) after.shift();
      }
    } catch (error) {
      if (isStreamNotFound(error)) return [];
      throw error;
    }
    return [];
  }

  async streamRevision(streamId: string): Promise<number | null> {
    const [last] = await this.readRecorded(streamId, {
      direction: BACKWARDS,
      fromRevision: END,
      maxCount: 1,
    });
    return last ? Number(last.revision) : null;
  }

  /**
   * The server filters out $-typed events; events of $-streams with ordinary types (rare) are dropped here, so a
   * page can come back short and the read goes on from the last position it saw until it has maxCount events or
   * reaches the end of the log.
   */
  async readAll(options: ReadAllOptions = {}): Promise<EventEnvelope[]> {
    const wanted = options.maxCount ?? Number.MAX_SAFE_INTEGER;
    const envelopes: EventEnvelope[] = [];
    let cursor = options.after ?? 0;
    while (envelopes.length < wanted) {
      // One more than needed: the read includes the event at the cursor, which is then skipped.
      const pageSize = Math.min(wanted - envelopes.length, READ_ALL_PAGE) + 1;
      let seen = 0;
      for await (const resolved of this.client.readAll({
        direction: FORWARDS,
        fromPosition: toReadPosition(cursor),
        maxCount: pageSize,
        filter: excludeSystemEvents(),
      })) {
        seen += 1;
        const event = resolved.event;
        if (!event) continue;
        const position = positionOf(event);
        if (position <= cursor) continue;
        cursor = position;
        if (!isSystemEvent(event)) envelopes.push(this.toEnvelope(event));
      }
      if (seen < pageSize) break;
    }
    return envelopes.slice(0, wanted);
  }

  /** KurrentDB sends every event whole: the headers of readAll's events. */
  async readAllHeaders(options: ReadAllOptions = {}): Promise<EventHeader[]> {
    return (await this.readAll(options)).map((event) => ({ position: event.position, type: event.type }));
  }

  async headPosition(): Promise<number> {
    let from: ReadPosition = END;
    for (;;) {
      let seen = 0;
      let oldest: KurrentPosition | undefined;
      for await (const resolved of this.client.readAll({
        direction: BACKWARDS,
        fromPosition: from,
        maxCount: READ_ALL_PAGE,
        filter: excludeSystemEvents(),
      })) {
        seen += 1;
        const event = resolved.event;
        if (!event) continue;
        if (!isSystemEvent(event)) return positionOf(event);
        oldest = event.position;
      }
      if (seen < READ_ALL_PAGE || !oldest) return 0;
      from = oldest;
    }
  }

  subscribeToAll(options: SubscribeOptions): Subscription {
    const subscription = nativeSubscription(
      this.client,
      options,
      (resolved) => this.fromLog(resolved),
      () => {
        this.subscriptions.delete(subscription);
      },
    );
    this.subscriptions.add(subscription);
    return subscription;
  }

  async close(): Promise<void> {
    await Promise.all([...this.subscriptions].map((subscription) => subscription.stop()));
    await this.client.dispose();
  }

  private async readRecorded(
    streamId: string,
    options: {
      direction: typeof FORWARDS | typeof BACKWARDS;
      fromRevision: ReadRevision;
      maxCount: number | bigint;
    },
  ): Promise<RecordedEvent[]> {
    const recorded: RecordedEvent[] = [];
    try {
      for await (const resolved of this.client.readStream(streamId, options)) {
        if (resolved.event) recorded.push(resolved.event);
      }
    } catch (error) {
      if (isStreamNotFound(error)) return [];
      throw error;
    }
    return recorded;
  }

  /** A $all event as an envelope, or null for what the port's log leaves out (system events, unresolved links). */
  private fromLog(resolved: AllStreamResolvedEvent): EventEnvelope | null {
    const event = resolved.event;
    if (!event || isSystemEvent(event)) return null;
    return this.toEnvelope(event);
  }

  private toEnvelope(event: RecordedEvent): EventEnvelope {
    return this.upcasters.upcast({
      id: event.id,
      type: event.type,
      streamId: event.streamId,
      revision: Number(event.revision),
      position: positionOf(event),
      data: event.data as unknown,
      metadata: event.metadata as unknown as EventMetadata,
    });
  }
}

/** The port's expected state in the client's terms. */
export function toStreamState(expected: ExpectedRevision): AppendStreamState {
  switch (expected) {
    case 'any':
      return ANY;
    case 'no_stream':
      return NO_STREAM;
    case 'stream_exists':
      return STREAM_EXISTS;
    default:
      if (!Number.isSafeInteger(expected) || expected < 0) {
        throw new RangeError(`Expected revision must be a non-negative integer, got ${expected}`);
      }
      return BigInt(expected);
  }
}

/** The client's conflict as the port's typed conflict, with the stream's actual revision. */
export function toWrongExpectedRevision(
  streamId: string,
  expected: ExpectedRevision,
  error: Pick<WrongExpectedVersionError, 'actualState'>,
): WrongExpectedRevisionError {
  const actual = error.actualState;
  // Older servers report a missing stream as revision -1 rather than as no_stream.
  const revision = actual === NO_STREAM || actual < 0n ? 'no_stream' : Number(actual);
  return new WrongExpectedRevisionError(streamId, describeExpected(expected), revision);
}

/** Our event as a KurrentDB JSON event: our id (the idempotency key), data, and our metadata as its JSON metadata. */
export function toEventData(event: NewEvent): EventData {
  return jsonEvent({
    id: event.id,
    type: event.type,
    data: event.data as JSONType,
    metadata: { ...event.metadata },
  });
}

/** A log position as the port's number; see the module header for why the commit position is enough. */
export function toLogPosition(commit: bigint): number {
  if (commit < 0n || commit > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new RangeError(`KurrentDB log position ${commit} does not fit a safe integer`);
  }
  return Number(commit);
}

/**
 * The port's exclusive checkpoint as a client read position (the read itself includes the event there). A log
 * position is a byte offset, so `after` must be one this adapter handed out (or 0): any other offset is not a record.
 */
export function toReadPosition(after: number | undefined): ReadPosition {
  if (after === undefined || after <= 0) return START;
  const position = BigInt(after);
  return { commit: position, prepare: position };
}

/** KurrentDB's own events: $-prefixed types ($metadata, links, stats) and anything written to a $-stream. */
export function isSystemEvent(event: Pick<RecordedEvent, 'type' | 'streamId'>): boolean {
  return event.type.startsWith('$') || event.streamId.startsWith('$');
}

function positionOf(event: RecordedEvent): number {
  // Stream reads return positions since server 22.6; older servers are not supported.
  if (!event.position) throw new Error(`KurrentDB returned event ${event.id} without its log position`);
  return toLogPosition(event.position.commit);
}

const sameId = (left: string, right: string): boolean => left.toLowerCase() === right.toLowerCase();

function isWrongExpectedVersion(error: unknown): error is WrongExpectedVersionError {
  return (
    error instanceof WrongExpectedVersionError ||
    (error instanceof Error && (error as { type?: unknown }).type === ErrorType.WRONG_EXPECTED_VERSION)
  );
}

function isStreamNotFound(error: unknown): boolean {
  return (
    error instanceof StreamNotFoundError ||
    (error instanceof Error && (error as { type?: unknown }).type === ErrorType.STREAM_NOT_FOUND)
  );
}

/**
 * A catch-up subscription on the client's own $all subscription, which turns live by itself. Events are pulled
 * from its buffer in micro-batches (what has arrived, up to batchSize), and onEvents gets one batch at a time.
 * The server's caught-up signal comes through the same pipe as the events but is emitted as soon as it is parsed,
 * while events before it may still wait in the buffer: counting those keeps onCaughtUp after the events it follows.
 */
// Over 100 lines on purpose: one live subscription's catch-up, hand-over and retry share its position.
function nativeSubscription(
  client: KurrentDBClient,
  options: SubscribeOptions,
  toEnvelope: (resolved: AllStreamResolvedEvent) => EventEnvelope | null,
  onFinished: () => void,
): Subscription {
  const batchSize = Math.max(1, options.batchSize ?? DEFAULT_BATCH_SIZE);
  const source = client.subscribeToAll({
    fromPosition: toReadPosition(options.after),
    filter: excludeSystemEvents(),
  });

  let stopped = false;
  let ended = false;
  let failure: { error: unknown } | undefined;
  /** Events taken out of the source so far, delivered or skipped. */
  let taken = 0;
  /** How many events precede the caught-up signal, once it came. */
  let caughtUpAt: number | undefined;
  let wake: (() => void) | undefined;
  // A signal while the loop is busy is remembered: the caught-up signal can even fire inside source.read(), when
  // draining the buffer lets the source parse its next message.
  let signalled = false;
  const signal = () => {
    const resume = wake;
    wake = undefined;
    if (resume) resume();
    else signalled = true;
  };

  source.on('readable', signal);
  source.on('end', () => {
    ended = true;
    signal();
  });
  // Kept for the subscription's whole life: an 'error' without a listener would crash the process.
  source.on('error', (error: Error) => {
    failure ??= { error };
    signal();
  });
  source.on('caughtUp', () => {
    caughtUpAt ??= taken + source.readableLength;
    signal();
  });

  let released: Promise<void> | undefined;
  const release = () =>
    (released ??= (async () => {
      await source.unsubscribe().catch(() => undefined);
      source.destroy();
    })());

  const loop = async () => {
    let checkpoint = options.after ?? 0;
    let reportedCaughtUp = false;
    while (!stopped) {
      if (!reportedCaughtUp && caughtUpAt !== undefined && taken >= caughtUpAt) {
        reportedCaughtUp = true;
        options.onCaughtUp?.();
        continue;
      }
      const batch: EventEnvelope[] = [];
      let pulled = 0;
      while (batch.length < batchSize) {
        // A batch never spans the caught-up signal, so onCaughtUp comes right after the events stored before it.
        if (!reportedCaughtUp && caughtUpAt !== undefined && taken >= caughtUpAt) break;
        const resolved = source.read() as AllStreamResolvedEvent | null;
        if (resolved === null) break;
        pulled += 1;
        taken += 1;
        const envelope = toEnvelope(resolved);
        // The checkpoint is exclusive and a reconnecting server may repeat an event: both are dropped here.
        if (!envelope || envelope.position <= checkpoint) continue;
        checkpoint = envelope.position;
        batch.push(envelope);
      }
      if (batch.length > 0) {
        await options.onEvents(batch);
        continue;
      }
      if (pulled > 0) continue;
      if (failure) throw failure.error;
      if (ended) throw new Error('KurrentDB ended the $all subscription');
      if (!signalled) {
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      }
      signalled = false;
    }
  };

  const running = (async () => {
    try {
      await loop();
    } catch (error) {
      if (!stopped) {
        stopped = true;
        options.onError?.(error);
      }
    } finally {
      await release();
      onFinished();
    }
  })();

  return {
    async stop() {
      stopped = true;
      signal();
      const unsubscribed = release();
      await running;
      await unsubscribed;
    },
  };
}
