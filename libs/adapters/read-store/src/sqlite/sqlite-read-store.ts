// Embedded read store: SQLite tables of JSON documents, one table per collection and generation. Indexes are
// expression indexes on json_extract, which the generated queries use verbatim. A projector's ops and checkpoint
// commit in one transaction; every document remembers the position of the last event applied to it.
// Over 300 lines on purpose: the whole port over SQLite (generations, registry, checkpoints, leases, queries)
// shares its statements and transactions.
import type { DatabaseSync, SQLInputValue, StatementSync } from 'node:sqlite';
import { checkpointInThread, execOpening, openPrivateDatabase, truncateWal } from '#kernel';
import {
  decodeCursor,
  encodeCursor,
  InvalidCursorError,
  emptyProjectionRecord,
  physicalName,
  type CollectionSpec,
  type DocumentReader,
  type FieldCondition,
  type Filter,
  type FindOptions,
  checkOmitted,
  type Page,
  type PositionedOp,
  type ProjectionRecord,
  type ProjectionRef,
  type ReadStore,
  type StoredDocument,
} from '../read-store.port.js';

const NAME = /^[a-z][a-z0-9_]*$/;
const FIELD = /^[A-Za-z_][A-Za-z0-9_]*$/;

function checkName(name: string): string {
  if (!NAME.test(name)) throw new Error(`invalid collection name '${name}'`);
  return name;
}

const field = (name: string): string => {
  if (name === 'id') return 'id';
  if (!FIELD.test(name)) throw new Error(`invalid field name '${name}'`);
  return `json_extract(doc, '$.${name}')`;
};

const bindable = (value: unknown): SQLInputValue => {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value === undefined) return null;
  return value as SQLInputValue;
};

export interface SqliteReadStoreOptions {
  readonly path: string;
  /** How long a reader trusts its cached map of live generations (other processes may switch them). */
  readonly generationCacheMs?: number;
  /**
   * The compiled worker of the process's WAL checkpoint thread (kernel's WalCheckpoints; default: the one beside its
   * module, when compiled); null leaves checkpoints to the committing thread, as SQLite does by default.
   */
  readonly checkpointWorker?: URL | null;
}

export class SqliteReadStore implements ReadStore {
  readonly atomicCommit = true;

  private readonly db: DatabaseSync;
  private readonly statementCache = new Map<string, StatementSync>();
  private liveTables: { map: Map<string, string>; at: number } | null = null;
  private readonly generationCacheMs: number;
  private readonly stopCheckpoints: (() => Promise<void>) | null;

  constructor(options: SqliteReadStoreOptions) {
    this.db = openPrivateDatabase(options.path);
    // secure_delete: a purged document's bytes are overwritten, not left in a free page; a commit that deletes
    // documents (a purge) then checkpoints and truncates the WAL, whose older frames still hold them.
    execOpening(
      this.db,
      'PRAGMA busy_timeout = 5000; PRAGMA secure_delete = ON; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;',
    );
    execOpening(
      this.db,
      `
      CREATE TABLE IF NOT EXISTS projections (name TEXT PRIMARY KEY, record TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS checkpoints (
        name TEXT NOT NULL, generation INTEGER NOT NULL, position INTEGER NOT NULL, PRIMARY KEY (name, generation));
      CREATE TABLE IF NOT EXISTS leases (name TEXT PRIMARY KEY, owner TEXT NOT NULL, expires_at INTEGER NOT NULL);
    `,
    );
    this.generationCacheMs = options.generationCacheMs ?? 500;
    // Projectors commit on the event loop; copying the log into the file (and syncing it) is the thread's work.
    this.stopCheckpoints = checkpointInThread(this.db, {
      path: options.path,
      synchronous: 'NORMAL',
      worker: options.checkpointWorker,
    });
  }

  private statement(sql: string): StatementSync {
    let statement = this.statementCache.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statementCache.set(sql, statement);
    }
    return statement;
  }

  private liveTable(collection: string): string | null {
    const now = Date.now();
    if (!this.liveTables || now - this.liveTables.at > this.generationCacheMs) {
      const map = new Map<string, string>();
      for (const record of this.projectionsSync()) {
        if (record.liveGeneration === null) continue;
        for (const name of record.collections) map.set(name, physicalName(name, record.liveGeneration));
      }
      this.liveTables = { map, at: now };
    }
    return this.liveTables.map.get(collection) ?? null;
  }

  reader<T extends StoredDocument>(collection: string): DocumentReader<T> {
    return this.tableReader<T>(() => this.liveTable(checkName(collection)));
  }

  readerAt<T extends StoredDocument>(collection: string, ref: ProjectionRef): DocumentReader<T> {
    const table = physicalName(checkName(collection), ref.generation);
    return this.tableReader<T>(() => table);
  }

  /**
   * Reads of a table that may not exist (a generation not prepared yet, or dropped, here or by another process on the
   * same file): asked as if it did, and a missing table reads as empty. Projectors read through this on every event,
   * so no catalogue lookup precedes each read.
   */
  private ifTable<R>(table: string, read: () => R, absent: R): R {
    try {
      return read();
    } catch (error) {
      // node:sqlite's errors may come from another realm (a test's VM context): their message is what is checked.
      const message = (error as { message?: unknown } | null)?.message;
      if (typeof message !== 'string' || !message.includes(`no such table: ${table}`)) throw error;
      // A statement prepared while the table existed stays invalid once it is gone.
      for (const sql of this.statementCache.keys())
        if (sql.includes(`"${table}"`)) this.statementCache.delete(sql);
      return absent;
    }
  }

  private tableReader<T extends StoredDocument>(resolve: () => string | null): DocumentReader<T> {
    /** `run` on the table, or `absent` when there is none (no live generation, or its table missing). */
    const onTable = <R>(absent: R, run: (table: string) => R): R => {
      const table = resolve();
      return table ? this.ifTable(table, () => run(table), absent) : absent;
    };
    return {
      get: async (id) => {
        const row = onTable(
          undefined,
          (table) =>
            this.statement(`SELECT doc FROM "${table}" WHERE id = ?`).get(id) as { doc: string } | undefined,
        );
        return row ? (JSON.parse(row.doc) as T) : null;
      },
      find: async (filter = {}, options = {}) =>
        onTable<Page<T>>({ data: [], nextCursor: null }, (table) => this.find<T>(table, filter, options)),
      count: async (filter = {}) =>
        onTable(0, (table) => {
          const { sql, params } = whereClause(filter);
          const row = this.statement(`SELECT COUNT(*) AS n FROM "${table}" WHERE ${sql}`).get(...params);
          return (row as { n: number }).n;
        }),
    };
  }

  private find<T>(table: string, filter: Filter, options: FindOptions): Page<T> {
    const where = whereClause(filter);
    const sortField = options.sort?.field ?? 'id';
    const descending = options.sort?.direction === 'desc';
    const expr = field(sortField);
    const clauses = [where.sql];
    const params = [...where.params];
    if (options.cursor) {
      const cursor = decodeCursor(options.cursor);
      if (!cursor) throw new InvalidCursorError();
      const keyset = keysetCondition(expr, descending, cursor.value, cursor.id, sortField === 'id');
      clauses.push(keyset.sql);
      params.push(...keyset.params);
    }
    const direction = descending ? 'DESC' : 'ASC';
    const limit = options.limit ?? -1;
    const order = sortField === 'id' ? `id ${direction}` : `${expr} ${direction}, id ${direction}`;
    // SQLite drops omitted fields while the row is still text: they are never parsed here.
    const omit = checkOmitted(options);
    const doc =
      omit.length === 0
        ? 'doc'
        : `json_remove(doc, ${omit.map((name) => `'$.${checkFieldName(name)}'`).join(', ')})`;
    const rows = this.statement(
      `SELECT id, ${doc} AS doc, ${expr} AS sort_value FROM "${table}" WHERE ${clauses.join(' AND ')} ORDER BY ${order} LIMIT ?`,
    ).all(...params, limit < 0 ? -1 : limit + 1) as { id: string; doc: string; sort_value: unknown }[];
    const more = limit >= 0 && rows.length > limit;
    const page = more ? rows.slice(0, limit) : rows;
    const last = page[page.length - 1];
    return {
      data: page.map((row) => JSON.parse(row.doc) as T),
      nextCursor: more && last ? encodeCursor({ value: last.sort_value, id: last.id }) : null,
    };
  }

  async prepareGeneration(ref: ProjectionRef, collections: readonly CollectionSpec[]): Promise<void> {
    this.transaction(() => {
      for (const spec of collections) {
        const table = physicalName(checkName(spec.name), ref.generation);
        this.db.exec(
          `CREATE TABLE IF NOT EXISTS "${table}" (id TEXT PRIMARY KEY, doc TEXT NOT NULL, position INTEGER NOT NULL)`,
        );
        for (const index of spec.indexes ?? []) {
          const columns = index.fields.map(field).join(', ');
          const indexName = `${table}__${index.fields.join('_')}`;
          this.db.exec(
            `CREATE ${index.unique ? 'UNIQUE ' : ''}INDEX IF NOT EXISTS "${indexName}" ON "${table}" (${columns})`,
          );
        }
      }
      const record = this.projectionSync(ref.name) ?? emptyProjectionRecord(ref.name);
      const names = new Set([...record.collections, ...collections.map((c) => c.name)]);
      this.saveProjectionSync({ ...record, collections: [...names] });
      this.statement('INSERT OR IGNORE INTO checkpoints (name, generation, position) VALUES (?, ?, 0)').run(
        ref.name,
        ref.generation,
      );
    });
  }

  async dropGeneration(ref: ProjectionRef, collections: readonly string[]): Promise<void> {
    this.transaction(() => {
      for (const name of collections)
        this.db.exec(`DROP TABLE IF EXISTS "${physicalName(checkName(name), ref.generation)}"`);
      this.statement('DELETE FROM checkpoints WHERE name = ? AND generation = ?').run(
        ref.name,
        ref.generation,
      );
    });
    // A dropped generation may hold what the live one no longer has (a rebuild after an erasure).
    truncateWal(this.db);
    this.statementCache.clear();
  }

  /**
   * The statement of a commit's op, found by (table, op kind, fields) without building its SQL again: a rebuild
   * commits hundreds of thousands of ops, and building and hashing each one's SQL text cost more than running it.
   */
  private opStatement(table: string, key: string, sql: () => string): StatementSync {
    let byKey = this.opStatements.get(table);
    if (!byKey) {
      byKey = new Map();
      this.opStatements.set(table, byKey);
    }
    let statement = byKey.get(key);
    if (!statement) {
      statement = this.statement(sql());
      byKey.set(key, statement);
    }
    return statement;
  }

  private readonly opStatements = new Map<string, Map<string, StatementSync>>();

  async commit(ref: ProjectionRef, ops: readonly PositionedOp[], checkpoint: number): Promise<void> {
    this.transaction(() => {
      for (const { position, op } of ops) {
        const physical = physicalName(checkName(op.collection), ref.generation);
        const table = `"${physical}"`;
        switch (op.kind) {
          case 'upsert':
            this.opStatement(
              physical,
              'upsert',
              () => `INSERT INTO ${table} (id, doc, position) VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE
                 SET doc = excluded.doc, position = excluded.position WHERE position < excluded.position`,
            ).run(op.doc.id, JSON.stringify(op.doc), position);
            break;
          case 'patch': {
            const entries = Object.entries(op.set).filter(([, value]) => value !== undefined);
            if (entries.length === 0) break;
            const fields = entries.map(([name]) => checkFieldName(name)).join(',');
            this.opStatement(physical, `patch:${fields}`, () => {
              const paths = entries.map(([name]) => `'$.${checkFieldName(name)}', json(?)`).join(', ');
              return `UPDATE ${table} SET doc = json_set(doc, ${paths}), position = ? WHERE id = ? AND position < ?`;
            }).run(...entries.map(([, value]) => JSON.stringify(value)), position, op.id, position);
            break;
          }
          case 'increment': {
            const entries = Object.entries(op.by);
            const initial = { ...op.onCreate, ...op.by, id: op.id };
            const sets = entries
              .map(([name]) => `'$.${checkFieldName(name)}', COALESCE(json_extract(doc, '$.${name}'), 0) + ?`)
              .join(', ');
            this.statement(
              `INSERT INTO ${table} (id, doc, position) VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE
                 SET doc = json_set(doc, ${sets}), position = excluded.position WHERE position < excluded.position`,
            ).run(op.id, JSON.stringify(initial), position, ...entries.map(([, value]) => value));
            break;
          }
          case 'delete':
            this.opStatement(
              physical,
              'delete',
              () => `DELETE FROM ${table} WHERE id = ? AND position < ?`,
            ).run(op.id, position);
            break;
        }
      }
      this.statement(
        `INSERT INTO checkpoints (name, generation, position) VALUES (?, ?, ?) ON CONFLICT (name, generation)
           DO UPDATE SET position = MAX(position, excluded.position)`,
      ).run(ref.name, ref.generation, checkpoint);
    });
    if (ops.some(({ op }) => op.kind === 'delete')) truncateWal(this.db);
  }

  async checkpoint(ref: ProjectionRef): Promise<number> {
    const row = this.statement('SELECT position FROM checkpoints WHERE name = ? AND generation = ?').get(
      ref.name,
      ref.generation,
    ) as { position: number } | undefined;
    return row?.position ?? 0;
  }

  private projectionSync(name: string): ProjectionRecord | null {
    const row = this.statement('SELECT record FROM projections WHERE name = ?').get(name) as
      { record: string } | undefined;
    return row ? (JSON.parse(row.record) as ProjectionRecord) : null;
  }

  private projectionsSync(): ProjectionRecord[] {
    return (this.statement('SELECT record FROM projections ORDER BY name').all() as { record: string }[]).map(
      (row) => JSON.parse(row.record) as ProjectionRecord,
    );
  }

  private saveProjectionSync(record: ProjectionRecord): void {
    this.statement(
      'INSERT INTO projections (name, record) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET record = excluded.record',
    ).run(record.name, JSON.stringify(record));
    this.liveTables = null;
  }

  async projection(name: string): Promise<ProjectionRecord | null> {
    return this.projectionSync(name);
  }

  async projections(): Promise<ProjectionRecord[]> {
    return this.projectionsSync();
  }

  async saveProjection(
    record: Partial<ProjectionRecord> & { readonly name: string },
  ): Promise<ProjectionRecord> {
    let saved: ProjectionRecord = emptyProjectionRecord(record.name);
    this.transaction(() => {
      saved = { ...(this.projectionSync(record.name) ?? emptyProjectionRecord(record.name)), ...record };
      this.saveProjectionSync(saved);
    });
    return saved;
  }

  async acquireLease(name: string, owner: string, ttlMs: number, replacing?: string): Promise<boolean> {
    const now = Date.now();
    const result = this.statement(
      `INSERT INTO leases (name, owner, expires_at) VALUES (?, ?, ?) ON CONFLICT (name) DO UPDATE
       SET owner = excluded.owner, expires_at = excluded.expires_at
       WHERE owner = excluded.owner OR expires_at < ? OR owner = ?`,
    ).run(name, owner, now + ttlMs, now, replacing ?? null);
    return result.changes > 0;
  }

  async releaseLease(name: string, owner: string): Promise<void> {
    this.statement('DELETE FROM leases WHERE name = ? AND owner = ?').run(name, owner);
  }

  async leaseHolder(name: string): Promise<{ owner: string; expiresAt: number } | null> {
    const row = this.statement('SELECT owner, expires_at FROM leases WHERE name = ? AND expires_at >= ?').get(
      name,
      Date.now(),
    ) as { owner: string; expires_at: number } | undefined;
    return row ? { owner: row.owner, expiresAt: row.expires_at } : null;
  }

  async close(): Promise<void> {
    await this.stopCheckpoints?.();
    if (this.db.isOpen) this.db.close();
  }

  private transaction(work: () => void): void {
    this.db.exec('BEGIN IMMEDIATE');
    try {
      work();
      this.db.exec('COMMIT');
    } catch (error) {
      if (this.db.isTransaction) this.db.exec('ROLLBACK');
      throw error;
    }
  }
}

function checkFieldName(name: string): string {
  if (!FIELD.test(name)) throw new Error(`invalid field name '${name}'`);
  return name;
}

function whereClause(filter: Filter): { sql: string; params: SQLInputValue[] } {
  const parts: string[] = [];
  const params: SQLInputValue[] = [];
  for (const [name, condition] of Object.entries(filter)) {
    const expr = field(name);
    for (const [sql, values] of conditionSql(expr, condition)) {
      parts.push(sql);
      params.push(...values);
    }
  }
  return { sql: parts.length > 0 ? parts.join(' AND ') : '1 = 1', params };
}

function conditionSql(expr: string, condition: FieldCondition): [string, SQLInputValue[]][] {
  if (condition === null) return [[`${expr} IS NULL`, []]];
  if (typeof condition !== 'object') return [[`${expr} = ?`, [bindable(condition)]]];
  const out: [string, SQLInputValue[]][] = [];
  if (condition.$in !== undefined) {
    out.push(
      condition.$in.length === 0
        ? ['0 = 1', []]
        : [`${expr} IN (${condition.$in.map(() => '?').join(', ')})`, condition.$in.map(bindable)],
    );
  }
  if (condition.$ne !== undefined) {
    out.push(
      condition.$ne === null
        ? [`${expr} IS NOT NULL`, []]
        : [`(${expr} IS NULL OR ${expr} != ?)`, [bindable(condition.$ne)]],
    );
  }
  const ranges = { $gt: '>', $gte: '>=', $lt: '<', $lte: '<=' } as const;
  for (const [key, operator] of Object.entries(ranges) as [keyof typeof ranges, string][]) {
    const value = condition[key];
    if (value !== undefined) out.push([`${expr} ${operator} ?`, [bindable(value)]]);
  }
  return out;
}

/** Rows strictly after the cursor in (sort value, id) order; NULLs sort first ascending, as in MongoDB. */
function keysetCondition(
  expr: string,
  descending: boolean,
  value: unknown,
  id: string,
  sortById: boolean,
): { sql: string; params: SQLInputValue[] } {
  if (sortById) return { sql: descending ? 'id < ?' : 'id > ?', params: [id] };
  const v = bindable(value);
  if (!descending) {
    return value === null
      ? { sql: `((${expr} IS NULL AND id > ?) OR ${expr} IS NOT NULL)`, params: [id] }
      : { sql: `(${expr} > ? OR (${expr} = ? AND id > ?))`, params: [v, v, id] };
  }
  return value === null
    ? { sql: `(${expr} IS NULL AND id < ?)`, params: [id] }
    : { sql: `(${expr} < ? OR ${expr} IS NULL OR (${expr} = ? AND id < ?))`, params: [v, v, id] };
}
