// Embedded event store: one SQLite file in WAL mode. The rowid is the global position; (stream, revision) is unique;
// event ids are unique, which makes re-sent batches durable no-ops.
// Over 300 lines on purpose: the whole port over one SQLite file (appends, idempotency, reads, subscriptions)
// shares its statements and its transaction rules.
import { EventEmitter } from 'node:events';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import {
  IdempotencyMismatchError,
  WrongExpectedRevisionError,
  type EventEnvelope,
  type NewEvent,
  checkpointInThread,
  openPrivateDatabase,
} from '#kernel';
import {
  describeExpected,
  type AppendResult,
  type EventStore,
  type ExpectedRevision,
  type ReadAllOptions,
  type ReadStreamOptions,
  type SubscribeOptions,
  type Subscription,
} from '../event-store.port.js';
import { UpcasterRegistry } from '../upcasters.js';
import { GroupCommit, type Outcome } from './group-commit.js';
import { pollingSubscription } from './polling-subscription.js';

interface EventRow {
  position: number;
  id: string;
  stream_id: string;
  revision: number;
  type: string;
  data: string;
  metadata: string;
}

interface AppendRequest {
  readonly streamId: string;
  readonly events: readonly NewEvent[];
  readonly expected: ExpectedRevision;
}

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS events (
    position  INTEGER PRIMARY KEY AUTOINCREMENT,
    id        TEXT NOT NULL UNIQUE,
    stream_id TEXT NOT NULL,
    revision  INTEGER NOT NULL,
    type      TEXT NOT NULL,
    data      TEXT NOT NULL,
    metadata  TEXT NOT NULL,
    UNIQUE (stream_id, revision)
  );
`;

/** Parsed pages of the global log kept for readers at the same place (a few MB at most). */
const FULL_PAGE_CACHE = 16;

export interface SqliteEventStoreOptions {
  /** A file path, or ':memory:' for tests. */
  readonly path: string;
  readonly upcasters?: UpcasterRegistry;
  /** How often the head of the log is checked for events other processes appended, while subscriptions are live. */
  readonly pollIntervalMs?: number;
  /**
   * The compiled worker of the process's WAL checkpoint thread (kernel's WalCheckpoints; default: the one beside its
   * module, when compiled); null leaves checkpoints to the appending thread, as SQLite does by default.
   */
  readonly checkpointWorker?: URL | null;
}

export class SqliteEventStore implements EventStore {
  private readonly db: DatabaseSync;
  private readonly appended = new EventEmitter();
  private readonly fullPages = new Map<string, readonly EventEnvelope[]>();
  /**
   * The last short page (the head of the log) a subscription read, for the other subscriptions reading the same page
   * in this turn of the event loop: an append wakes them all at once and the new events are parsed once, not once per
   * projector. Dropped by the next local append and at the end of the turn, so it is at most as stale as a read made a
   * moment earlier, which a subscription cannot tell apart (it reads on after each short page that an append follows).
   */
  private headPage: { readonly key: string; readonly page: readonly EventEnvelope[] } | null = null;
  private headPageExpiry: NodeJS.Immediate | null = null;
  /**
   * One poll for all subscriptions: it reads the head (an index lookup) and wakes them only when another process has
   * moved it, instead of every subscription reading the log on its own timer.
   */
  private headPoll: NodeJS.Timeout | null = null;
  private knownHead = 0;
  /**
   * What the batch being committed wrote (null: nothing yet): the subscriptions are told once it commits. Its appends
   * that failed were rolled back, positions and all: those that stand wrote every position from `from` to `to`.
   */
  private written: { from: number; to: number; types: string[] } | null = null;
  private readonly commits = new GroupCommit<AppendRequest, AppendResult>((batch) => this.commitBatch(batch));
  private listeners = 0;
  private readonly upcasters: UpcasterRegistry;
  private readonly pollIntervalMs: number;
  private readonly stopCheckpoints: (() => Promise<void>) | null;
  private readonly statements: {
    findIds: StatementSync;
    findId: StatementSync;
    revision: StatementSync;
    insert: StatementSync;
    readForwards: StatementSync;
    readBackwards: StatementSync;
    readAll: StatementSync;
    head: StatementSync;
  };

  constructor(options: SqliteEventStoreOptions) {
    this.db = openPrivateDatabase(options.path);
    this.db.exec('PRAGMA busy_timeout = 5000; PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;');
    this.db.exec(SCHEMA);
    // Appends commit (and sync the log) on the event loop; copying the log into the file is the thread's work.
    this.stopCheckpoints = checkpointInThread(this.db, {
      path: options.path,
      synchronous: 'FULL',
      worker: options.checkpointWorker,
    });
    this.upcasters = options.upcasters ?? new UpcasterRegistry();
    this.pollIntervalMs = options.pollIntervalMs ?? 100;
    this.appended.setMaxListeners(0);
    this.statements = {
      findIds: this.db.prepare(
        'SELECT id, stream_id, revision, position FROM events WHERE id IN (SELECT value FROM json_each(?)) ORDER BY position',
      ),
      findId: this.db.prepare('SELECT revision FROM events WHERE id = ? AND stream_id = ?'),
      revision: this.db.prepare(
        'SELECT revision FROM events WHERE stream_id = ? ORDER BY revision DESC LIMIT 1',
      ),
      insert: this.db.prepare(
        'INSERT INTO events (id, stream_id, revision, type, data, metadata) VALUES (?, ?, ?, ?, ?, ?) RETURNING position',
      ),
      readForwards: this.db.prepare(
        'SELECT * FROM events WHERE stream_id = ? AND revision >= ? ORDER BY revision ASC LIMIT ?',
      ),
      readBackwards: this.db.prepare(
        'SELECT * FROM events WHERE stream_id = ? AND revision <= ? ORDER BY revision DESC LIMIT ?',
      ),
      readAll: this.db.prepare('SELECT * FROM events WHERE position > ? ORDER BY position ASC LIMIT ?'),
      head: this.db.prepare('SELECT COALESCE(MAX(position), 0) AS head FROM events'),
    };
  }

  async appendToStream(
    streamId: string,
    events: readonly NewEvent[],
    expected: ExpectedRevision,
  ): Promise<AppendResult> {
    return this.commits.submit({ streamId, events, expected });
  }

  /** One transaction for the batch; a failing member is rolled back to its savepoint and the others commit. */
  private commitBatch(batch: readonly AppendRequest[]): Outcome<AppendResult>[] {
    this.db.exec('BEGIN IMMEDIATE');
    let outcomes: Outcome<AppendResult>[];
    try {
      outcomes =
        batch.length === 1
          ? [this.appendAlone(batch[0]!)]
          : batch.map((append) => this.appendInSavepoint(append));
      if (this.db.isTransaction) this.db.exec('COMMIT');
    } catch (error) {
      if (this.db.isTransaction) this.db.exec('ROLLBACK');
      this.written = null;
      throw error;
    }
    const written = this.written;
    if (written) {
      this.headPage = null;
      this.knownHead = Math.max(this.knownHead, written.to);
      this.written = null;
      this.appended.emit('appended', written);
    }
    return outcomes;
  }

  /** A batch of one needs no savepoint: its failure rolls the transaction back, and nothing is left to commit. */
  private appendAlone(append: AppendRequest): Outcome<AppendResult> {
    try {
      return { value: this.wrote(append, this.write(append)) };
    } catch (error) {
      this.db.exec('ROLLBACK');
      return this.settleFailure(append, error);
    }
  }

  private appendInSavepoint(append: AppendRequest): Outcome<AppendResult> {
    this.db.exec('SAVEPOINT append');
    try {
      const value = this.write(append);
      this.db.exec('RELEASE append');
      return { value: this.wrote(append, value) };
    } catch (error) {
      this.db.exec('ROLLBACK TO append');
      this.db.exec('RELEASE append');
      return this.settleFailure(append, error);
    }
  }

  private write({ streamId, events, expected }: AppendRequest): AppendResult {
    const current = this.currentRevision(streamId);
    checkExpected(streamId, expected, current);
    const positions: number[] = [];
    let revision = current ?? -1;
    for (const event of events) {
      revision += 1;
      const row = this.statements.insert.get(
        event.id,
        streamId,
        revision,
        event.type,
        JSON.stringify(event.data),
        JSON.stringify(event.metadata),
      ) as { position: number };
      positions.push(row.position);
    }
    return { nextRevision: revision, position: positions.at(-1) ?? this.head(), positions };
  }

  /** Notes what an append that stands wrote, for the subscriptions told once the batch commits. */
  private wrote({ events }: AppendRequest, result: AppendResult): AppendResult {
    const [first] = result.positions;
    if (first === undefined) return result;
    this.written ??= { from: first, to: first, types: [] };
    this.written.to = result.position;
    for (const event of events) this.written.types.push(event.type);
    return result;
  }

  private settleFailure({ streamId, events }: AppendRequest, error: unknown): Outcome<AppendResult> {
    // A retried batch fails on its stale revision or on the unique event ids: only then look the ids up, so the
    // happy path costs no extra query. The lookup sees the earlier appends of the same batch.
    try {
      const retried = error instanceof WrongExpectedRevisionError || isDuplicateEventId(error);
      const stored = retried ? this.alreadyStored(streamId, events) : null;
      if (stored) return { value: stored };
    } catch (mismatch) {
      return { error: mismatch };
    }
    if (isDuplicateEventId(error)) return { error: new IdempotencyMismatchError(streamId) };
    return { error };
  }

  /** The original result when every id of the batch is stored already; null when none is. */
  private alreadyStored(streamId: string, events: readonly NewEvent[]): AppendResult | null {
    if (events.length === 0) return null;
    const rows = this.statements.findIds.all(
      JSON.stringify(events.map((event) => event.id)),
    ) as unknown as Pick<EventRow, 'id' | 'stream_id' | 'revision' | 'position'>[];
    if (rows.length === 0) return null;
    const sameBatch =
      rows.length === events.length &&
      rows.every((row, index) => row.stream_id === streamId && row.id === events[index]?.id);
    if (!sameBatch) throw new IdempotencyMismatchError(streamId);
    const last = rows[rows.length - 1]!;
    return {
      nextRevision: last.revision,
      position: last.position,
      positions: rows.map((row) => row.position),
    };
  }

  private currentRevision(streamId: string): number | null {
    const row = this.statements.revision.get(streamId) as { revision: number } | undefined;
    return row ? row.revision : null;
  }

  private head(): number {
    return (this.statements.head.get() as { head: number }).head;
  }

  async readStream(streamId: string, options: ReadStreamOptions = {}): Promise<EventEnvelope[]> {
    const limit = options.maxCount ?? Number.MAX_SAFE_INTEGER;
    const rows =
      options.direction === 'backwards'
        ? this.statements.readBackwards.all(streamId, options.fromRevision ?? Number.MAX_SAFE_INTEGER, limit)
        : this.statements.readForwards.all(streamId, options.fromRevision ?? 0, limit);
    return (rows as unknown as EventRow[]).map((row) => this.toEnvelope(row));
  }

  async readStreamFromEvent(streamId: string, eventId: string, maxCount: number): Promise<EventEnvelope[]> {
    // The unique index on the event id finds it; then the stream's index reads on from its revision.
    const found = this.statements.findId.get(eventId, streamId) as { revision: number } | undefined;
    if (!found || maxCount <= 0) return [];
    return this.readStream(streamId, { fromRevision: found.revision, maxCount });
  }

  async streamRevision(streamId: string): Promise<number | null> {
    return this.currentRevision(streamId);
  }

  /**
   * readAll for subscriptions: the head page another subscription read in this turn is shared, and a read from the
   * known head on is empty without a query. Every subscription reads again after each page it applies: after one
   * append, dozens of them would each ask SQLite for an empty page. What other processes appended beyond the known
   * head, the head poll announces (it moves the known head first), as it does for a subscription gone idle.
   */
  private async readAllShared(options: ReadAllOptions = {}): Promise<EventEnvelope[]> {
    if ((options.after ?? 0) >= this.knownHead) return [];
    const key = `${options.after ?? 0}:${options.maxCount ?? Number.MAX_SAFE_INTEGER}`;
    if (this.headPage?.key === key) return [...this.headPage.page];
    const page = this.readAllSync(options);
    if (page.length > 0 && page.length < (options.maxCount ?? Number.MAX_SAFE_INTEGER)) {
      this.headPage = { key, page };
      this.headPageExpiry ??= setImmediate(() => {
        this.headPage = null;
        this.headPageExpiry = null;
      });
    }
    return [...page];
  }

  async readAll(options: ReadAllOptions = {}): Promise<EventEnvelope[]> {
    return [...this.readAllSync(options)];
  }

  /** The page itself (possibly cached): callers hand out copies. */
  private readAllSync(options: ReadAllOptions): readonly EventEnvelope[] {
    const after = options.after ?? 0;
    const limit = options.maxCount ?? Number.MAX_SAFE_INTEGER;
    const key = `${after}:${limit}`;
    const cached = this.fullPages.get(key);
    if (cached) return cached;
    const rows = this.statements.readAll.all(after, limit) as unknown as EventRow[];
    const page = rows.map((row) => this.toEnvelope(row));
    // A full page can never change (positions commit in order), so projectors catching up side by side parse
    // each page once. A short page is at the head and may still grow: it is not kept.
    if (page.length === limit && limit <= 5000) {
      this.fullPages.set(key, page);
      if (this.fullPages.size > FULL_PAGE_CACHE) this.fullPages.delete(this.fullPages.keys().next().value!);
    }
    return page;
  }

  async headPosition(): Promise<number> {
    return this.head();
  }

  subscribeToAll(options: SubscribeOptions): Subscription {
    return pollingSubscription({ readAll: (read) => this.readAllShared(read) }, options, {
      onAppended: (listener) => {
        this.appended.on('appended', listener);
        this.listening(+1);
        return () => {
          this.appended.off('appended', listener);
          this.listening(-1);
        };
      },
    });
  }

  private listening(change: number): void {
    this.listeners += change;
    if (this.listeners > 0 && !this.headPoll) {
      this.knownHead = Math.max(this.knownHead, this.head());
      this.headPoll = setInterval(() => this.pollHead(), this.pollIntervalMs);
      this.headPoll.unref();
    } else if (this.listeners === 0 && this.headPoll) {
      clearInterval(this.headPoll);
      this.headPoll = null;
    }
  }

  private pollHead(): void {
    if (!this.db.isOpen) return;
    const head = this.head();
    if (head <= this.knownHead) return;
    this.knownHead = head;
    this.headPage = null;
    // Other processes' appends: what they hold is not known here, so every subscription reads.
    this.appended.emit('appended');
  }

  async close(): Promise<void> {
    // Appends already accepted are committed, not dropped.
    if (this.db.isOpen) this.commits.flush();
    if (this.headPoll) clearInterval(this.headPoll);
    this.headPoll = null;
    if (this.headPageExpiry) clearImmediate(this.headPageExpiry);
    this.headPageExpiry = null;
    this.headPage = null;
    await this.stopCheckpoints?.();
    if (this.db.isOpen) this.db.close();
  }

  private toEnvelope(row: EventRow): EventEnvelope {
    return this.upcasters.upcast({
      id: row.id,
      type: row.type,
      streamId: row.stream_id,
      revision: row.revision,
      position: row.position,
      data: JSON.parse(row.data) as unknown,
      metadata: JSON.parse(row.metadata) as EventEnvelope['metadata'],
    });
  }
}

function isDuplicateEventId(error: unknown): boolean {
  // Not `instanceof Error`: node:sqlite's errors may come from another realm (test sandboxes).
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === 'string' && /UNIQUE constraint failed: events\.id/.test(message);
}

export function checkExpected(streamId: string, expected: ExpectedRevision, current: number | null): void {
  const ok =
    expected === 'any' ||
    (expected === 'no_stream' && current === null) ||
    (expected === 'stream_exists' && current !== null) ||
    (typeof expected === 'number' && current === expected);
  if (!ok) throw new WrongExpectedRevisionError(streamId, describeExpected(expected), current ?? 'no_stream');
}
