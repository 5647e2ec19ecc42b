// The key store's SQLite file as both its threads open it (sqlite-key-store.ts, key-writer.worker.ts): the pragmas
// and the log truncation that make a destroyed key leave no copy (secure_delete; a write-ahead log truncated to
// nothing after each destruction and at each opening), the schema, and the one write that creates keys.
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { execOpening, openPrivateDatabase } from '#kernel/thread-kit';

/** A key to create: its id, its group, and its bytes as stored (wrapped when there is a master key). */
export interface NewKeyRow {
  readonly keyId: string;
  readonly group: string;
  readonly stored: Uint8Array;
}

export function openKeyDatabase(path: string): DatabaseSync {
  const db = openPrivateDatabase(path);
  // WAL, synchronous FULL: a new key is durable at its commit, which costs one fsync (the rollback journal's cost
  // four and an unlink: 3 ms against 1.25 ms in the key-writer thread, and a conversation turn creates keys).
  execOpening(
    db,
    'PRAGMA busy_timeout = 5000; PRAGMA secure_delete = ON; PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;',
  );
  execOpening(
    db,
    `
    CREATE TABLE IF NOT EXISTS data_keys (
      key_id TEXT PRIMARY KEY, grp TEXT NOT NULL, key BLOB NOT NULL, created_at INTEGER NOT NULL);
    CREATE INDEX IF NOT EXISTS data_keys_grp ON data_keys (grp);
    CREATE TABLE IF NOT EXISTS key_group_destructions (grp TEXT PRIMARY KEY, count INTEGER NOT NULL);
  `,
  );
  // A process that died between a destruction and its truncation left the key's older pages in the log.
  truncateLog(db);
  return db;
}

/**
 * Copies the write-ahead log into the database and truncates it to nothing. secure_delete zeroes a destroyed key in
 * the page that replaces its page, but the log still holds the page's earlier versions (the key as it was created)
 * until then; the checkpoint overwrites the database's copy with the zeroed page. Throws when another connection's
 * read keeps the log in use beyond the busy timeout: the destruction is then retried (it is idempotent).
 */
export function truncateLog(db: DatabaseSync): void {
  const result = db.prepare('PRAGMA wal_checkpoint(TRUNCATE)').get() as { busy: number } | undefined;
  if (result && result.busy !== 0)
    throw new Error('The key store could not truncate its log: another connection is reading it');
}

export const prepareInsert = (db: DatabaseSync): StatementSync =>
  db.prepare('INSERT OR IGNORE INTO data_keys (key_id, grp, key, created_at) VALUES (?, ?, ?, ?)');

/**
 * Creates the keys in one transaction (one commit): a key that exists already (another writer won) is left as it is.
 * Returns the ids of those: the caller reads them back after the commit (the others are the bytes it gave).
 */
export function insertKeys(
  db: DatabaseSync,
  insert: StatementSync,
  rows: readonly NewKeyRow[],
  now: number,
): string[] {
  const existing: string[] = [];
  db.exec('BEGIN IMMEDIATE');
  try {
    for (const row of rows)
      if (Number(insert.run(row.keyId, row.group, row.stored, now).changes) === 0) existing.push(row.keyId);
    db.exec('COMMIT');
  } catch (error) {
    if (db.isTransaction) db.exec('ROLLBACK');
    throw error;
  }
  return existing;
}
