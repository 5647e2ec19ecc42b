// Embedded key store: one SQLite file (DATA_DIR/keys.db by default) of data keys, each filed under a group.
// Destroying a key must leave no copy anywhere in the directory: secure_delete overwrites the deleted row and freed
// pages with zeros, and the write-ahead log, which keeps a page's earlier versions until a checkpoint, is checkpointed
// and truncated to nothing before a destruction returns (key-database.ts); the log and its index are removed when the
// last connection closes. Blocks the file system itself freed are beyond SQLite's reach.
// New keys of a file-backed store are committed in a worker thread (key-writer.ts): the commit's fsync no longer
// holds the event loop (a conversation turn's retrieval runs meanwhile); reads and destructions stay in this thread.
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { pooledRandomBytes } from '#kernel';
import type { KeyStore, WantedKey } from '../key-store.port.js';
import { DATA_KEY_BYTES, KeyWrapping } from '../key-wrapping.js';
import { insertKeys, openKeyDatabase, prepareInsert, truncateLog, type NewKeyRow } from './key-database.js';
import { defaultKeyWriterWorker, KeyWriter } from './key-writer.js';

export interface SqliteKeyStoreOptions {
  /** The database file, or `:memory:`. */
  readonly path: string;
  /** Wraps the stored keys (AES-256-GCM); without it they are stored raw. */
  readonly masterKey?: Buffer | undefined;
  /**
   * The compiled key-writer worker new keys are committed in (default: the one beside this module, when compiled);
   * null commits them in this thread. A `:memory:` store always does.
   */
  readonly writerWorker?: URL | null | undefined;
}

/** SQLite allows 32,766 bound parameters; smaller chunks keep each statement cheap to prepare. */
const GET_MANY_CHUNK = 500;

interface KeyRow {
  readonly key_id: string;
  readonly key: Uint8Array;
}

export class SqliteKeyStore implements KeyStore {
  private readonly db: DatabaseSync;
  private readonly wrapping: KeyWrapping;
  private readonly insert: StatementSync;
  private readonly deleteOne: StatementSync;
  private readonly deleteGroup: StatementSync;
  private readonly countDestruction: StatementSync;
  private readonly selectDestructions: StatementSync;
  private readonly selectChunk = new Map<number, StatementSync>();
  private readonly writer: KeyWriter | null;

  constructor(options: SqliteKeyStoreOptions) {
    this.wrapping = new KeyWrapping(options.masterKey);
    this.db = openKeyDatabase(options.path);
    this.insert = prepareInsert(this.db);
    const worker = options.writerWorker === undefined ? defaultKeyWriterWorker() : options.writerWorker;
    this.writer = worker && options.path !== ':memory:' ? new KeyWriter(worker, options.path) : null;
    this.deleteOne = this.db.prepare('DELETE FROM data_keys WHERE key_id = ? RETURNING grp');
    this.deleteGroup = this.db.prepare('DELETE FROM data_keys WHERE grp = ?');
    this.countDestruction = this.db.prepare(
      'INSERT INTO key_group_destructions (grp, count) VALUES (?, 1) ON CONFLICT (grp) DO UPDATE SET count = count + 1',
    );
    this.selectDestructions = this.db.prepare('SELECT count FROM key_group_destructions WHERE grp = ?');
  }

  async obtain(keyId: string, group: string): Promise<Buffer> {
    return (await this.obtainMany([{ keyId, group }])).get(keyId)!;
  }

  async obtainMany(wanted: readonly WantedKey[]): Promise<ReadonlyMap<string, Buffer>> {
    // Keys that exist are read without a write transaction: only a commit costs the log's fsync.
    const keys = new Map(await this.getMany(wanted.map((each) => each.keyId)));
    const missing = new Map<string, string>();
    for (const { keyId, group } of wanted)
      if (!keys.has(keyId) && !missing.has(keyId)) missing.set(keyId, group);
    if (missing.size === 0) return keys;
    // Every missing key in one transaction (one commit). Another process may create one of them between our read
    // and our insert: whichever insert won is the key, so the ones ours did not create are read back after it.
    const now = Date.now();
    const made = new Map<string, Buffer>();
    const rows: NewKeyRow[] = [...missing].map(([keyId, group]) => {
      const key = pooledRandomBytes(DATA_KEY_BYTES);
      made.set(keyId, key);
      return { keyId, group, stored: this.wrapping.wrap(keyId, key) };
    });
    const existing = this.writer
      ? await this.writer.insert(rows, now)
      : insertKeys(this.db, this.insert, rows, now);
    const won = existing.length > 0 ? await this.getMany(existing) : new Map<string, Buffer>();
    for (const keyId of missing.keys()) {
      const key = existing.includes(keyId) ? won.get(keyId) : made.get(keyId);
      // Only a destroy racing this very call gets here; the caller asked for a key that exists, so say so.
      if (!key) throw new Error(`Data key '${keyId}' was destroyed while it was being obtained`);
      keys.set(keyId, key);
    }
    return keys;
  }

  async getMany(keyIds: readonly string[]): Promise<ReadonlyMap<string, Buffer>> {
    const ids = [...new Set(keyIds)];
    const keys = new Map<string, Buffer>();
    for (let start = 0; start < ids.length; start += GET_MANY_CHUNK) {
      const chunk = ids.slice(start, start + GET_MANY_CHUNK);
      for (const row of this.selectIn(chunk.length).all(...chunk) as unknown as KeyRow[]) {
        keys.set(row.key_id, this.wrapping.unwrap(row.key_id, row.key));
      }
    }
    return keys;
  }

  async destructions(group: string): Promise<number> {
    const row = this.selectDestructions.get(group) as { count: number } | undefined;
    return row?.count ?? 0;
  }

  // A destruction and its count commit together: a reader never sees the key gone and the count unchanged.
  async destroy(keyId: string): Promise<void> {
    this.counted(() => {
      const row = this.deleteOne.get(keyId) as { grp: string } | undefined;
      if (row) this.countDestruction.run(row.grp);
    });
  }

  async destroyGroup(group: string): Promise<number> {
    return this.counted(() => {
      const destroyed = Number(this.deleteGroup.run(group).changes);
      if (destroyed > 0) this.countDestruction.run(group);
      return destroyed;
    });
  }

  private counted<T>(destroy: () => T): T {
    this.db.exec('BEGIN IMMEDIATE');
    let result: T;
    try {
      result = destroy();
      this.db.exec('COMMIT');
    } catch (error) {
      if (this.db.isTransaction) this.db.exec('ROLLBACK');
      throw error;
    }
    // The destroyed keys' earlier pages leave the log before the destruction returns.
    truncateLog(this.db);
    return result;
  }

  async close(): Promise<void> {
    await this.writer?.close();
    if (this.db.isOpen) this.db.close();
  }

  private selectIn(count: number): StatementSync {
    let statement = this.selectChunk.get(count);
    if (!statement) {
      const placeholders = Array.from({ length: count }, () => '?').join(', ');
      statement = this.db.prepare(`SELECT key_id, key FROM data_keys WHERE key_id IN (${placeholders})`);
      this.selectChunk.set(count, statement);
    }
    return statement;
  }
}
