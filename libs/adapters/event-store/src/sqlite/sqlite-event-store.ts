// Embedded event store: one SQLite file in WAL mode. The rowid is the global position; (stream, revision) is unique;
// event ids are unique, which makes re-sent batches durable no-ops.
// Over 300 lines on purpose: the whole port over one SQLite file (appends, idempotency, reads, subscriptions)
// shares its statements and its transaction rules.
import { EventEmitter } from 'node:events';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import {
  type EventEnvelope,
  type NewEvent,
  checkpointInThread,
  execOpening,
  openPrivateDatabase,
} from '#kernel';
import {
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
import { CommitThread, defaultCommitWorker } from './commit-thread.js';
import { EventCommits, type CommittedBatch, type EncodedAppend } from './event-commits.js';
import { GroupCommit, type Outcome } from './group-commit.js';
import { pollingSubscription } from './polling-subscription.js';

/**
 * A row of the events table as node:sqlite hands it when its statement returns arrays: the columns of EVENT_COLUMNS,
 * in order. Building an array per row costs less than an object keyed by column name: reading and parsing a page of
 * the log took a third less time (1.23 against 1.87 µs an event, 100,000 small events, measured).
 */
type EventRow = [
  position: number,
  id: string,
  streamId: string,
  revision: number,
  type: string,
  data: string,
  metadata: string,
];

const EVENT_COLUMNS = 'position, id, stream_id, revision, type, data, metadata';

/** The statement, answering each row as an array (EventRow). */
const returningArrays = (statement: StatementSync): StatementSync => {
  statement.setReturnArrays(true);
  return statement;
};

/** An append as its caller's task encoded it: its JSON, and how many characters of it there are. */
interface AppendRequest {
  readonly append: EncodedAppend;
  readonly bytes: number;
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
  /**
   * The compiled worker of the commit thread (commit-thread.ts; default: the one beside its module, when compiled);
   * null commits every batch in this thread. Never used for ':memory:' (another thread cannot open it).
   */
  readonly commitWorker?: URL | null;
  /** The JSON a batch holds (characters of data and metadata) from which it commits in the commit thread. */
  readonly commitThreadMinBytes?: number;
  /** The most JSON one batch holds (characters); an append larger than this is a batch of its own. */
  readonly maxBatchBytes?: number;
}

/**
 * 64 KB: a long message (a pasted document) is over it; a command's events, a turn's short messages and a second of
 * usage records are under it, and commit here without a round trip to the thread (a sync of a small log write takes
 * a fraction of a millisecond on a quiet disk).
 */
const DEFAULT_COMMIT_THREAD_MIN_BYTES = 64 * 1024;

/**
 * 1 MB: the JSON one batch holds at most (an append larger than this goes alone). Forty long messages sent at once
 * (4.7 MB) were one batch, and handing it to the commit thread (copying it into a message) held the loop for 25–50 ms
 * on the bench machine in one task; bounded, it goes in batches of about eight, with the loop's other work (a health
 * check, the next request's headers) in between.
 */
const DEFAULT_MAX_BATCH_BYTES = 1024 * 1024;

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
  private readonly writes: EventCommits;
  /** Where batches of at least `threadMinBytes` of JSON commit; null: every batch commits in this thread. */
  private readonly thread: CommitThread | null;
  private readonly threadMinBytes: number;
  private readonly commits: GroupCommit<AppendRequest, AppendResult>;
  private listeners = 0;
  private readonly upcasters: UpcasterRegistry;
  private readonly pollIntervalMs: number;
  private readonly stopCheckpoints: (() => Promise<void>) | null;
  private readonly statements: {
    findId: StatementSync;
    revision: StatementSync;
    readForwards: StatementSync;
    readBackwards: StatementSync;
    readAll: StatementSync;
    readAllHeaders: StatementSync;
    head: StatementSync;
  };

  constructor(options: SqliteEventStoreOptions) {
    this.db = openPrivateDatabase(options.path);
    // Another process may be opening the same new file at this moment (an api and a worker started together).
    execOpening(this.db, 'PRAGMA busy_timeout = 5000; PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;');
    execOpening(this.db, SCHEMA);
    // Appends commit (and sync the log) on the event loop, large batches in the commit thread; copying the log into
    // the file is the checkpoint thread's work.
    this.stopCheckpoints = checkpointInThread(this.db, {
      path: options.path,
      synchronous: 'FULL',
      worker: options.checkpointWorker,
    });
    this.writes = new EventCommits(this.db);
    const commitWorker = options.commitWorker === undefined ? defaultCommitWorker() : options.commitWorker;
    this.thread =
      commitWorker && options.path !== ':memory:' ? new CommitThread(commitWorker, options.path) : null;
    this.threadMinBytes = options.commitThreadMinBytes ?? DEFAULT_COMMIT_THREAD_MIN_BYTES;
    this.commits = new GroupCommit<AppendRequest, AppendResult>((batch) => this.commitBatch(batch), {
      sizeOf: (request) => request.bytes,
      maxBatchSize: options.maxBatchBytes ?? DEFAULT_MAX_BATCH_BYTES,
    });
    this.upcasters = options.upcasters ?? new UpcasterRegistry();
    this.pollIntervalMs = options.pollIntervalMs ?? 100;
    this.appended.setMaxListeners(0);
    this.statements = {
      findId: this.db.prepare('SELECT revision FROM events WHERE id = ? AND stream_id = ?'),
      revision: this.db.prepare(
        'SELECT revision FROM events WHERE stream_id = ? ORDER BY revision DESC LIMIT 1',
      ),
      readForwards: returningArrays(
        this.db.prepare(
          `SELECT ${EVENT_COLUMNS} FROM events WHERE stream_id = ? AND revision >= ? ORDER BY revision ASC LIMIT ?`,
        ),
      ),
      readBackwards: returningArrays(
        this.db.prepare(
          `SELECT ${EVENT_COLUMNS} FROM events WHERE stream_id = ? AND revision <= ? ORDER BY revision DESC LIMIT ?`,
        ),
      ),
      readAll: returningArrays(
        this.db.prepare(
          `SELECT ${EVENT_COLUMNS} FROM events WHERE position > ? ORDER BY position ASC LIMIT ?`,
        ),
      ),
      readAllHeaders: this.db.prepare(
        'SELECT position, type FROM events WHERE position > ? ORDER BY position ASC LIMIT ?',
      ),
      head: this.db.prepare('SELECT COALESCE(MAX(position), 0) AS head FROM events'),
    };
  }

  /**
   * The events are encoded here, in the caller's own task (an append whose data cannot be encoded is refused alone):
   * a batch of many large appends is not encoded all at once when it commits.
   */
  async appendToStream(
    streamId: string,
    events: readonly NewEvent[],
    expected: ExpectedRevision,
  ): Promise<AppendResult> {
    let bytes = 0;
    const stored = events.map((event) => {
      const data = JSON.stringify(event.data);
      const metadata = JSON.stringify(event.metadata);
      bytes += data.length + metadata.length;
      return { id: event.id, type: event.type, data, metadata };
    });
    return this.commits.submit({ append: { streamId, expected, events: stored }, bytes });
  }

  /**
   * One transaction for the batch (event-commits.ts): in this thread, or in the commit thread when its JSON is large
   * enough that its COMMIT would hold the event loop up (writing and syncing megabytes of log).
   */
  private commitBatch(
    batch: readonly AppendRequest[],
  ): Outcome<AppendResult>[] | Promise<Outcome<AppendResult>[]> {
    const encoded = batch.map((request) => request.append);
    const bytes = batch.reduce((sum, request) => sum + request.bytes, 0);
    // A batch the thread could not commit (it ended, or its transaction failed) is committed here instead: if it had
    // committed there after all, its event ids are found stored and its original positions answered (idempotency).
    if (this.thread && bytes >= this.threadMinBytes)
      return this.thread.commit(encoded).then(
        (committed) => this.committed(committed),
        () => this.committed(this.writes.commit(encoded)),
      );
    return this.committed(this.writes.commit(encoded));
  }

  /** Tells the subscriptions what the batch wrote, once it is committed. */
  private committed({ outcomes, written }: CommittedBatch): Outcome<AppendResult>[] {
    if (written) {
      this.headPage = null;
      this.knownHead = Math.max(this.knownHead, written.to);
      this.appended.emit('appended', written);
    }
    return outcomes;
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

  /** Columns stored before the data: a big event's overflow pages are not read. */
  async readAllHeaders(options: ReadAllOptions = {}): Promise<EventHeader[]> {
    return this.statements.readAllHeaders.all(
      options.after ?? 0,
      options.maxCount ?? Number.MAX_SAFE_INTEGER,
    ) as unknown as EventHeader[];
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
    // Appends already accepted are committed, not dropped; then the commit thread closes its connection before this one.
    if (this.db.isOpen) await this.commits.drain();
    await this.thread?.close();
    if (this.headPoll) clearInterval(this.headPoll);
    this.headPoll = null;
    if (this.headPageExpiry) clearImmediate(this.headPageExpiry);
    this.headPageExpiry = null;
    this.headPage = null;
    await this.stopCheckpoints?.();
    if (this.db.isOpen) this.db.close();
  }

  /** Indexed, not destructured: destructuring an array goes through its iterator. */
  private toEnvelope(row: EventRow): EventEnvelope {
    return this.upcasters.upcast({
      id: row[1],
      type: row[4],
      streamId: row[2],
      revision: row[3],
      position: row[0],
      data: JSON.parse(row[5]) as unknown,
      metadata: JSON.parse(row[6]) as EventEnvelope['metadata'],
    });
  }
}
