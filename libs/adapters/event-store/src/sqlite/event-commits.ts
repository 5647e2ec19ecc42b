// The embedded event store's writes: a batch of appends in one transaction, each in its own savepoint (a failing one
// is rolled back and the others commit), with the expected-revision check and durable idempotency of re-sent batches.
// The same code runs in the store's own thread and in its commit thread (commit-thread.worker.ts), on that thread's
// own connection to the file: what crosses between them is plain data (appends with their JSON already encoded, and
// outcomes whose errors are described, then made again on the other side).
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { IdempotencyMismatchError, WrongExpectedRevisionError } from '#kernel/thread-kit';
import { describeExpected, type AppendResult, type ExpectedRevision } from '../event-store.port.js';
import type { Outcome } from './group-commit.js';

/** An append with its events' data and metadata as the JSON stored. */
export interface EncodedAppend {
  readonly streamId: string;
  readonly expected: ExpectedRevision;
  readonly events: readonly {
    readonly id: string;
    readonly type: string;
    readonly data: string;
    readonly metadata: string;
  }[];
}

/** What a committed batch wrote: every position from `from` to `to`, and their event types in order. */
export interface Written {
  readonly from: number;
  readonly to: number;
  readonly types: string[];
}

export interface CommittedBatch {
  readonly outcomes: Outcome<AppendResult>[];
  readonly written: Written | null;
}

/** An append's refusal as data, so that it can cross threads and be made again as the same error. */
export type DescribedError =
  | {
      readonly kind: 'revision';
      readonly streamId: string;
      readonly expected: string;
      readonly actual: number | 'no_stream';
    }
  | { readonly kind: 'idempotency'; readonly streamId: string }
  | { readonly kind: 'other'; readonly message: string };

export class EventCommits {
  private readonly statements: {
    readonly findIds: StatementSync;
    readonly revision: StatementSync;
    readonly insert: StatementSync;
    readonly head: StatementSync;
  };
  private written: { from: number; to: number; types: string[] } | null = null;

  constructor(private readonly db: DatabaseSync) {
    this.statements = {
      findIds: db.prepare(
        'SELECT id, stream_id, revision, position FROM events WHERE id IN (SELECT value FROM json_each(?)) ORDER BY position',
      ),
      revision: db.prepare('SELECT revision FROM events WHERE stream_id = ? ORDER BY revision DESC LIMIT 1'),
      insert: db.prepare(
        'INSERT INTO events (id, stream_id, revision, type, data, metadata) VALUES (?, ?, ?, ?, ?, ?) RETURNING position',
      ),
      head: db.prepare('SELECT COALESCE(MAX(position), 0) AS head FROM events'),
    };
  }

  /** One transaction for the batch; throws (nothing committed) only when the transaction itself fails. */
  commit(batch: readonly EncodedAppend[]): CommittedBatch {
    this.written = null;
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
    this.written = null;
    return { outcomes, written };
  }

  /** A batch of one needs no savepoint: its failure rolls the transaction back, and nothing is left to commit. */
  private appendAlone(append: EncodedAppend): Outcome<AppendResult> {
    try {
      return { value: this.wrote(append, this.write(append)) };
    } catch (error) {
      this.db.exec('ROLLBACK');
      return this.settleFailure(append, error);
    }
  }

  private appendInSavepoint(append: EncodedAppend): Outcome<AppendResult> {
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

  private write({ streamId, events, expected }: EncodedAppend): AppendResult {
    const row = this.statements.revision.get(streamId) as { revision: number } | undefined;
    const current = row ? row.revision : null;
    checkExpected(streamId, expected, current);
    const positions: number[] = [];
    let revision = current ?? -1;
    for (const event of events) {
      revision += 1;
      const inserted = this.statements.insert.get(
        event.id,
        streamId,
        revision,
        event.type,
        event.data,
        event.metadata,
      ) as { position: number };
      positions.push(inserted.position);
    }
    const position = positions.at(-1) ?? (this.statements.head.get() as { head: number }).head;
    return { nextRevision: revision, position, positions };
  }

  /** Notes what an append that stands wrote, for the subscriptions told once the batch commits. */
  private wrote({ events }: EncodedAppend, result: AppendResult): AppendResult {
    const [first] = result.positions;
    if (first === undefined) return result;
    this.written ??= { from: first, to: first, types: [] };
    this.written.to = result.position;
    for (const event of events) this.written.types.push(event.type);
    return result;
  }

  private settleFailure({ streamId, events }: EncodedAppend, error: unknown): Outcome<AppendResult> {
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
  private alreadyStored(streamId: string, events: EncodedAppend['events']): AppendResult | null {
    if (events.length === 0) return null;
    const rows = this.statements.findIds.all(JSON.stringify(events.map((event) => event.id))) as unknown as {
      id: string;
      stream_id: string;
      revision: number;
      position: number;
    }[];
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
}

function isDuplicateEventId(error: unknown): boolean {
  // Not `instanceof Error`: node:sqlite's errors may come from another realm (test sandboxes).
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === 'string' && /UNIQUE constraint failed: events\.id/.test(message);
}

function checkExpected(streamId: string, expected: ExpectedRevision, current: number | null): void {
  const ok =
    expected === 'any' ||
    (expected === 'no_stream' && current === null) ||
    (expected === 'stream_exists' && current !== null) ||
    (typeof expected === 'number' && current === expected);
  if (!ok) throw new WrongExpectedRevisionError(streamId, describeExpected(expected), current ?? 'no_stream');
}

/** An append's refusal as data (commit thread → store). */
export function describeError(error: unknown): DescribedError {
  if (error instanceof WrongExpectedRevisionError)
    return { kind: 'revision', streamId: error.streamId, expected: error.expected, actual: error.actual };
  if (error instanceof IdempotencyMismatchError) return { kind: 'idempotency', streamId: error.streamId };
  return { kind: 'other', message: error instanceof Error ? error.message : String(error) };
}

/** The error a described refusal stands for (the store's side). */
export function errorOf(described: DescribedError): Error {
  switch (described.kind) {
    case 'revision':
      return new WrongExpectedRevisionError(described.streamId, described.expected, described.actual);
    case 'idempotency':
      return new IdempotencyMismatchError(described.streamId);
    case 'other':
      return new Error(described.message);
  }
}
