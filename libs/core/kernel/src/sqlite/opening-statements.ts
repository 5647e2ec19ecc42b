// A database file's opening statements (its pragmas, its schema), run again while another process opening the same
// file holds it. Two processes that open a new file at once both turn on its write-ahead log, and SQLite refuses one
// of them at once ("database is locked") rather than let each wait for the other: a busy timeout does not apply to
// that refusal. The other's opening takes milliseconds, after which the statements find the log on (and the schema
// made) and run; a file busy for longer than `timeoutMs` fails the opening as before.
import type { DatabaseSync } from 'node:sqlite';

const SQLITE_BUSY = 5;
const SQLITE_LOCKED = 6;
const PAUSE_MS = 5;
/** What the pause waits on: nothing ever wakes it, so it lasts PAUSE_MS. */
const PAUSE = new Int32Array(new SharedArrayBuffer(4));

/** Whether SQLite refused the statement because another connection holds the file (busy or locked, any variant). */
const isBusy = (error: unknown): boolean => {
  const code = (error as { errcode?: unknown } | null)?.errcode;
  return typeof code === 'number' && ((code & 0xff) === SQLITE_BUSY || (code & 0xff) === SQLITE_LOCKED);
};

/** Runs `sql` (statements that are safe to run again: pragmas, `IF NOT EXISTS` schema), waiting out a busy file. */
export function execOpening(db: DatabaseSync, sql: string, timeoutMs = 5_000): void {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      db.exec(sql);
      return;
    } catch (error) {
      if (!isBusy(error) || Date.now() >= deadline) throw error;
      // Only while a file is being opened: a short synchronous pause, as the connection's own busy handler makes.
      Atomics.wait(PAUSE, 0, 0, PAUSE_MS);
    }
  }
}
