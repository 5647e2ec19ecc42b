// Production key store: one MongoDB collection (`data_keys`) of `{ _id: keyId, group, key, createdAt }` through
// mongoose's connection and driver, indexed on group for destroyGroup. A key is created by an upsert that only sets fields on insert,
// so concurrent obtains from any number of processes agree on the first key written. Beside it, `data_key_destructions`
// counts each group's destructions (`{ _id: group, count }`), for the caches that check it instead of every key.
import { mongo, type Connection } from 'mongoose';
import { openMongoConnection, pooledRandomBytes } from '#kernel';
import type { KeyStore, WantedKey } from '../key-store.port.js';
import { DATA_KEY_BYTES, KeyWrapping } from '../key-wrapping.js';

export interface MongoKeyStoreOptions {
  readonly uri: string;
  /** Database to use; default: the one named in the URI. */
  readonly dbName?: string;
  /** Default `data_keys`. */
  readonly collectionName?: string;
  /** Wraps the stored keys (AES-256-GCM); without it they are stored raw. */
  readonly masterKey?: Buffer | undefined;
}

export interface DataKeyDocument {
  readonly _id: string;
  readonly group: string;
  readonly key: mongo.Binary;
  readonly createdAt: Date;
}

export interface KeyDestructionsDocument {
  readonly _id: string;
  readonly count: number;
}

const DUPLICATE_KEY = 11000;

/** Whether a failed bulk upsert failed only on ids another writer inserted first. */
const onlyDuplicates = (error: unknown): boolean =>
  error instanceof mongo.MongoBulkWriteError
    ? [error.writeErrors].flat().every((each) => each.code === DUPLICATE_KEY)
    : error instanceof mongo.MongoServerError && error.code === DUPLICATE_KEY;

export class MongoKeyStore implements KeyStore {
  private constructor(
    private readonly connection: Connection,
    private readonly keys: mongo.Collection<DataKeyDocument>,
    private readonly destroyed: mongo.Collection<KeyDestructionsDocument>,
    private readonly wrapping: KeyWrapping,
  ) {}

  static async connect(options: MongoKeyStoreOptions): Promise<MongoKeyStore> {
    const wrapping = new KeyWrapping(options.masterKey);
    const { connection, db } = await openMongoConnection(options.uri, { dbName: options.dbName });
    try {
      const name = options.collectionName ?? 'data_keys';
      const keys = db.collection<DataKeyDocument>(name);
      await keys.createIndex({ group: 1 });
      const destroyed = db.collection<KeyDestructionsDocument>(`${name}_destructions`);
      return new MongoKeyStore(connection, keys, destroyed, wrapping);
    } catch (error) {
      await connection.close();
      throw error;
    }
  }

  async obtain(keyId: string, group: string): Promise<Buffer> {
    return (await this.obtainMany([{ keyId, group }])).get(keyId)!;
  }

  async obtainMany(wanted: readonly WantedKey[]): Promise<ReadonlyMap<string, Buffer>> {
    const keys = new Map(await this.getMany(wanted.map((each) => each.keyId)));
    const missing = new Map<string, string>();
    for (const { keyId, group } of wanted)
      if (!keys.has(keyId) && !missing.has(keyId)) missing.set(keyId, group);
    if (missing.size === 0) return keys;
    const createdAt = new Date();
    try {
      // One round trip for every missing key; each upsert only sets fields on insert, so a key another process
      // created first is kept as it is.
      await this.keys.bulkWrite(
        [...missing].map(([keyId, group]) => ({
          updateOne: {
            filter: { _id: keyId },
            update: {
              $setOnInsert: {
                group,
                key: new mongo.Binary(this.wrapping.wrap(keyId, pooledRandomBytes(DATA_KEY_BYTES))),
                createdAt,
              },
            },
            upsert: true,
          },
        })),
        { ordered: false },
      );
    } catch (error) {
      // Two upserts of a new _id can both miss and race to insert; the loser's key is simply not the one kept.
      if (!onlyDuplicates(error)) throw error;
    }
    const created = await this.getMany([...missing.keys()]);
    for (const keyId of missing.keys()) {
      const key = created.get(keyId);
      if (!key) throw new Error(`Data key '${keyId}' was destroyed while it was being obtained`);
      keys.set(keyId, key);
    }
    return keys;
  }

  async getMany(keyIds: readonly string[]): Promise<ReadonlyMap<string, Buffer>> {
    const keys = new Map<string, Buffer>();
    if (keyIds.length === 0) return keys;
    const found = this.keys.find({ _id: { $in: [...new Set(keyIds)] } }, { projection: { key: 1 } });
    for await (const stored of found)
      keys.set(stored._id, this.wrapping.unwrap(stored._id, stored.key.value()));
    return keys;
  }

  async destructions(group: string): Promise<number> {
    return (await this.destroyed.findOne({ _id: group }))?.count ?? 0;
  }

  // Without a transaction, the group's count grows before and after the delete: a reader that saw the count before
  // the first increment sees it changed once the key is gone, and one that read it between the two (and may have
  // opened a value while the key still existed) sees it change again.
  async destroy(keyId: string): Promise<void> {
    const stored = await this.keys.findOne({ _id: keyId }, { projection: { group: 1 } });
    if (!stored) return;
    await this.countDestruction(stored.group);
    await this.keys.deleteOne({ _id: keyId });
    await this.countDestruction(stored.group);
  }

  async destroyGroup(group: string): Promise<number> {
    await this.countDestruction(group);
    const destroyed = (await this.keys.deleteMany({ group })).deletedCount;
    await this.countDestruction(group);
    return destroyed;
  }

  private async countDestruction(group: string): Promise<void> {
    await this.destroyed.updateOne({ _id: group }, { $inc: { count: 1 } }, { upsert: true });
  }

  async close(): Promise<void> {
    await this.connection.close();
  }
}
