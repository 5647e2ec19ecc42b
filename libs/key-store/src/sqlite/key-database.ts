// The key store's SQLite file as both its threads open it (sqlite-key-store.ts, key-writer.worker.ts): the pragmas
// that make a destroyed key leave no copy (secure_delete, a rollback journal removed after each commit), the schema,
// and the one write that creates keys.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync, type StatementSync } from 'node:sqlite';

/** A key to create: its id, its group, and its bytes as stored (wrapped when there is a master key). */
export interface NewKeyRow {
  readonly keyId: string;
  readonly group: string;
  readonly stored: Uint8Array;
}

export function openKeyDatabase(path: string): DatabaseSync {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new DatabaseSync(path);
  db.exec('PRAGMA busy_timeout = 5000; PRAGMA secure_delete = ON; PRAGMA journal_mode = DELETE;');
  db.exec(`
    CREATE TABLE IF NOT EXISTS data_keys (
      key_id TEXT PRIMARY KEY, grp TEXT NOT NULL, key BLOB NOT NULL, created_at INTEGER NOT NULL);
    CREATE INDEX IF NOT EXISTS data_keys_grp ON data_keys (grp);
    CREATE TABLE IF NOT EXISTS key_group_destructions (grp TEXT PRIMARY KEY, count INTEGER NOT NULL);
  `);
  return db;
}

export const prepareInsert = (db: DatabaseSync): StatementSync =>
  db.prepare('INSERT OR IGNORE INTO data_keys (key_id, grp, key, created_at) VALUES (?, ?, ?, ?)');

/**
 * Creates the keys in one transaction (one commit): a key that exists already (another writer won) is left as it is,
 * so the caller reads the keys back after the commit.
 */
export function insertKeys(
  db: DatabaseSync,
  insert: StatementSync,
  rows: readonly NewKeyRow[],
  now: number,
): void {
  db.exec('BEGIN IMMEDIATE');
  try {
    for (const row of rows) insert.run(row.keyId, row.group, row.stored, now);
    db.exec('COMMIT');
  } catch (error) {
    if (db.isTransaction) db.exec('ROLLBACK');
    throw error;
  }
}
