// A writer's truncating checkpoint after an erasure, for the files the checkpoint thread also checkpoints (the read
// store's, the search index's; the key store's file is not one, and its truncation throws on busy instead): the
// write-ahead log still holds deleted text as it was (secure_delete zeroes the database's pages, not their older copies
// in the log) until it is copied back and emptied. SQLite answers `busy` at once, without its busy handler, when
// another connection holds the checkpoint lock: the process's checkpoint thread (wal-checkpoints.ts) in the middle of
// its PASSIVE round. That round takes milliseconds, so the truncation is tried again until it completes or `waitMs` has
// passed (readers in its way are waited for by SQLite itself, through the connection's busy_timeout).
import type { DatabaseSync } from 'node:sqlite';

/** How long a truncation waits for another checkpoint to finish, by default. */
export const WAL_TRUNCATE_WAIT_MS = 2_000;

const pause = new Int32Array(new SharedArrayBuffer(4));

/** Checkpoints the log into the database and truncates it; false when it stayed busy for `waitMs`. */
export function truncateWal(db: DatabaseSync, waitMs = WAL_TRUNCATE_WAIT_MS): boolean {
  const truncate = db.prepare('PRAGMA wal_checkpoint(TRUNCATE)');
  const deadline = Date.now() + waitMs;
  for (;;) {
    const result = truncate.get() as { busy: number } | undefined;
    if (!result || result.busy === 0) return true;
    if (Date.now() >= deadline) return false;
    // A synchronous pause: the callers truncate inside their own synchronous write paths.
    Atomics.wait(pause, 0, 0, 2);
  }
}
