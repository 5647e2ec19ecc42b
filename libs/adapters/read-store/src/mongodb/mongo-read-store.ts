// Production read store: MongoDB through a private mongoose connection. It owns the I/O of the port — collections
// per projection generation, the projection registry, checkpoints and leases — and sends the queries and write
// models that mongo-query.ts builds. Projection documents are schemaless (each projector decides their shape), so
// no mongoose schemas or models: mongoose is only the client, and the native driver collections do the work.
//
// Writes are "position-guarded idempotent writes" rather than transactions: every document keeps the position of
// the last event applied to it (_position) and every write requires a lower one, so replaying a batch after a crash
// between the writes and the checkpoint changes nothing. That works on a standalone server; a transaction could not
// even be used as is, because a skipped upsert surfaces as a duplicate-key write error, which aborts a transaction.
// Over 300 lines on purpose: the whole port's I/O over MongoDB (generations, registry, checkpoints, leases)
// shares one connection and its write rules.
import type { Connection, mongo } from 'mongoose';
import { openMongoConnection } from '#kernel';
import {
  physicalName,
  type CollectionSpec,
  type DocumentReader,
  type Filter,
  type FindOptions,
  type Page,
  type PositionedOp,
  type ProjectionRecord,
  type ProjectionRef,
  type ReadStore,
  type StoredDocument,
} from '../read-store.port.js';
import {
  checkName,
  checkpointId,
  checkpointUpdate,
  duplicateKeyIndex,
  filterQuery,
  findPlan,
  indexKeys,
  isDuplicateKey,
  isNewerThan,
  leaseAcquire,
  planCommit,
  projectionUpdate,
  registerCollectionsUpdate,
  runsByCollection,
  toDocument,
  toPage,
  toProjectionRecord,
  type PlannedWrite,
  type StoredRecord,
} from './mongo-query.js';

export interface MongoReadStoreOptions {
  readonly uri: string;
  /** Database to use; default: the one named in the URI. */
  readonly dbName?: string;
  /** How long a reader trusts its cached map of live generations (other processes may switch them). */
  readonly generationCacheMs?: number;
}

interface CheckpointRecord {
  _id: string;
  name: string;
  generation: number;
  position: number;
}

interface LeaseRecord {
  _id: string;
  owner: string;
  expiresAt: number;
}

interface ProjectionDocument extends mongo.Document {
  _id: string;
}

const NAMESPACE_EXISTS = 48;

export class MongoReadStore implements ReadStore {
  /** Guarded bulk writes, not a transaction: a crash may leave part of a batch applied. */
  readonly atomicCommit = false;

  private live: { readonly at: number; readonly map: Promise<Map<string, string>> } | null = null;

  private constructor(
    private readonly connection: Connection,
    private readonly db: mongo.Db,
    private readonly generationCacheMs: number,
  ) {}

  static async connect(options: MongoReadStoreOptions): Promise<MongoReadStore> {
    // ignoreUndefined: undefined values nested in documents are dropped, as JSON drops them in the SQLite adapter.
    const { connection, db } = await openMongoConnection(options.uri, {
      dbName: options.dbName,
      ignoreUndefined: true,
    });
    return new MongoReadStore(connection, db, options.generationCacheMs ?? 500);
  }

  // Driver collections from the Db rather than connection.collection(): mongoose keeps every collection wrapper it
  // hands out for the life of the connection, and generations keep creating and dropping collection names.
  private documents(name: string): mongo.Collection<StoredRecord> {
    return this.db.collection<StoredRecord>(name);
  }

  private get checkpoints(): mongo.Collection<CheckpointRecord> {
    return this.db.collection<CheckpointRecord>('checkpoints');
  }

  private get leases(): mongo.Collection<LeaseRecord> {
    return this.db.collection<LeaseRecord>('leases');
  }

  private get registry(): mongo.Collection<ProjectionDocument> {
    return this.db.collection<ProjectionDocument>('projections');
  }

  /** Collection name → physical name in its projection's live generation, cached for generationCacheMs. */
  private liveCollections(): Promise<Map<string, string>> {
    const now = Date.now();
    if (this.live && now - this.live.at <= this.generationCacheMs) return this.live.map;
    const entry = { at: now, map: this.loadLiveCollections() };
    this.live = entry;
    // A failed load is not cached: the next read tries again (the caller still gets the rejection).
    void entry.map.catch(() => {
      if (this.live === entry) this.live = null;
    });
    return entry.map;
  }

  private async loadLiveCollections(): Promise<Map<string, string>> {
    const map = new Map<string, string>();
    for (const record of await this.projections()) {
      if (record.liveGeneration === null) continue;
      for (const name of record.collections) map.set(name, physicalName(name, record.liveGeneration));
    }
    return map;
  }

  /** Called after every registry write, so this process reads its own switches at once. */
  private forgetLiveCollections(): void {
    this.live = null;
  }

  reader<T extends StoredDocument>(collection: string): DocumentReader<T> {
    const name = checkName(collection);
    return this.collectionReader<T>(async () => (await this.liveCollections()).get(name) ?? null);
  }

  readerAt<T extends StoredDocument>(collection: string, ref: ProjectionRef): DocumentReader<T> {
    // A generation that does not exist reads as empty, which a missing Mongo collection already does.
    const physical = physicalName(checkName(collection), ref.generation);
    return this.collectionReader<T>(() => Promise.resolve(physical));
  }

  private collectionReader<T extends StoredDocument>(
    resolve: () => Promise<string | null>,
  ): DocumentReader<T> {
    return {
      get: async (id) => {
        const name = await resolve();
        if (!name) return null;
        const record = await this.documents(name).findOne({ _id: id });
        return record ? toDocument<T>(record) : null;
      },
      find: async (filter = {}, options = {}) => this.find<T>(resolve, filter, options),
      count: async (filter = {}) => {
        const query = filterQuery(filter);
        const name = await resolve();
        return name ? this.documents(name).countDocuments(query) : 0;
      },
    };
  }

  private async find<T extends StoredDocument>(
    resolve: () => Promise<string | null>,
    filter: Filter,
    options: FindOptions,
  ): Promise<Page<T>> {
    // Planned first, so a bad cursor or field name is reported even before the first generation exists.
    const plan = findPlan(filter, options);
    const name = await resolve();
    if (!name) return { data: [], nextCursor: null };
    let cursor = this.documents(name).find(plan.query).sort(plan.sort);
    if (plan.projection) cursor = cursor.project(plan.projection);
    // One more than the page tells whether there is a next page.
    if (plan.limit !== null) cursor = cursor.limit(plan.limit + 1);
    return toPage<T>(await cursor.toArray(), plan);
  }

  async prepareGeneration(ref: ProjectionRef, collections: readonly CollectionSpec[]): Promise<void> {
    for (const spec of collections) {
      const name = physicalName(checkName(spec.name), ref.generation);
      await this.createCollection(name);
      for (const index of spec.indexes ?? []) {
        const keys = indexKeys(index);
        // createIndex is a no-op for an index that already exists with the same keys and options.
        if (keys) await this.documents(name).createIndex(keys, index.unique ? { unique: true } : {});
      }
    }
    await this.registry.updateOne(
      { _id: ref.name },
      registerCollectionsUpdate(
        ref.name,
        collections.map((spec) => spec.name),
      ),
      { upsert: true },
    );
    this.forgetLiveCollections();
    await this.checkpoints.updateOne(
      { _id: checkpointId(ref) },
      { $setOnInsert: { name: ref.name, generation: ref.generation, position: 0 } },
      { upsert: true },
    );
  }

  /** Explicit, so an empty generation exists (as SQLite's CREATE TABLE IF NOT EXISTS) and shows up in tools. */
  private async createCollection(name: string): Promise<void> {
    try {
      await this.db.createCollection(name);
    } catch (error) {
      if (!(
        typeof error === 'object' &&
        error !== null &&
        'code' in error &&
        error.code === NAMESPACE_EXISTS
      ))
        throw error;
    }
  }

  async dropGeneration(ref: ProjectionRef, collections: readonly string[]): Promise<void> {
    // The driver answers false, not an error, for a collection that does not exist ("ns not found").
    for (const name of collections)
      await this.db.dropCollection(physicalName(checkName(name), ref.generation));
    await this.checkpoints.deleteOne({ _id: checkpointId(ref) });
  }

  async commit(ref: ProjectionRef, ops: readonly PositionedOp[], checkpoint: number): Promise<void> {
    // Everything is validated and translated before the first write, so a bad op fails the batch up front.
    const runs = runsByCollection(planCommit(ref, ops));
    for (const run of runs) await this.applyRun(run);
    // Written last: after a crash before this point the batch is replayed, and the position guards skip what it
    // had already applied.
    await this.checkpoints.updateOne({ _id: checkpointId(ref) }, checkpointUpdate(ref, checkpoint), {
      upsert: true,
    });
  }

  /**
   * Writes to one collection in one ordered bulkWrite. An upsert or increment whose document has already seen its
   * position stops the bulk with a duplicate key on _id; once the document is confirmed newer, the op is skipped and
   * the rest resumes. A duplicate key on any other ground (a unique index) fails the commit.
   */
  private async applyRun(run: readonly PlannedWrite[]): Promise<void> {
    const first = run[0];
    if (!first) return;
    const collection = this.documents(first.collection);
    let start = 0;
    while (start < run.length) {
      const batch = run.slice(start);
      try {
        await collection.bulkWrite(
          batch.map((write) => write.model),
          { ordered: true },
        );
        return;
      } catch (error) {
        const index = duplicateKeyIndex(error);
        const failed = index === null ? undefined : batch[index];
        if (index === null || !failed) throw error;
        const newer = await collection.findOne(isNewerThan(failed.id, failed.position), {
          projection: { _id: 1 },
        });
        if (!newer) throw error;
        start += index + 1;
      }
    }
  }

  async checkpoint(ref: ProjectionRef): Promise<number> {
    const record = await this.checkpoints.findOne({ _id: checkpointId(ref) });
    return record?.position ?? 0;
  }

  async projection(name: string): Promise<ProjectionRecord | null> {
    const stored = await this.registry.findOne({ _id: name });
    return stored ? toProjectionRecord(stored) : null;
  }

  async projections(): Promise<ProjectionRecord[]> {
    const stored = await this.registry.find().sort({ _id: 1 }).toArray();
    return stored.map(toProjectionRecord);
  }

  async saveProjection(
    record: Partial<ProjectionRecord> & { readonly name: string },
  ): Promise<ProjectionRecord> {
    const saved = await this.registry.findOneAndUpdate({ _id: record.name }, projectionUpdate(record), {
      upsert: true,
      returnDocument: 'after',
    });
    this.forgetLiveCollections();
    return toProjectionRecord(saved ?? { _id: record.name });
  }

  async acquireLease(name: string, owner: string, ttlMs: number, replacing?: string): Promise<boolean> {
    const { filter, update } = leaseAcquire(name, owner, Date.now(), ttlMs, replacing);
    try {
      const result = await this.leases.updateOne(filter, update, { upsert: true });
      return result.matchedCount > 0 || result.upsertedCount > 0;
    } catch (error) {
      // The lease exists, held by another owner and unexpired: the upsert tried to insert its _id again.
      if (isDuplicateKey(error)) return false;
      throw error;
    }
  }

  async releaseLease(name: string, owner: string): Promise<void> {
    await this.leases.deleteOne({ _id: name, owner });
  }

  async leaseHolder(name: string): Promise<{ owner: string; expiresAt: number } | null> {
    const lease = await this.leases.findOne({ _id: name, expiresAt: { $gte: Date.now() } });
    return lease ? { owner: lease.owner, expiresAt: lease.expiresAt } : null;
  }

  async close(): Promise<void> {
    await this.connection.close();
  }
}
