// Production key store: one MongoDB collection (`data_keys`) of `{ _id: keyId, group, key, createdAt }` through the
// official driver, indexed on group for destroyGroup. A key is created by an upsert that only sets fields on insert,
// so concurrent obtains from any number of processes agree on the first key written.
import { randomBytes } from 'node:crypto';
import { Binary, MongoClient, MongoServerError, type Collection } from 'mongodb';
import type { KeyStore } from '../key-store.port.js';
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
  readonly key: Binary;
  readonly createdAt: Date;
}

const DUPLICATE_KEY = 11000;

export class MongoKeyStore implements KeyStore {
  private constructor(
    private readonly client: MongoClient,
    private readonly keys: Collection<DataKeyDocument>,
    private readonly wrapping: KeyWrapping,
  ) {}

  static async connect(options: MongoKeyStoreOptions): Promise<MongoKeyStore> {
    const wrapping = new KeyWrapping(options.masterKey);
    const client = await MongoClient.connect(options.uri);
    try {
      const keys = client
        .db(options.dbName)
        .collection<DataKeyDocument>(options.collectionName ?? 'data_keys');
      await keys.createIndex({ group: 1 });
      return new MongoKeyStore(client, keys, wrapping);
    } catch (error) {
      await client.close();
      throw error;
    }
  }

  async obtain(keyId: string, group: string): Promise<Buffer> {
    const candidate = { group, key: new Binary(this.wrapping.wrap(keyId, randomBytes(DATA_KEY_BYTES))) };
    try {
      await this.keys.updateOne(
        { _id: keyId },
        { $setOnInsert: { ...candidate, createdAt: new Date() } },
        { upsert: true },
      );
    } catch (error) {
      // Two upserts of a new _id can both miss and race to insert; the loser's key is simply not the one kept.
      if (!(error instanceof MongoServerError && error.code === DUPLICATE_KEY)) throw error;
    }
    const stored = await this.keys.findOne({ _id: keyId }, { projection: { key: 1 } });
    if (!stored) throw new Error(`Data key '${keyId}' was destroyed while it was being obtained`);
    return this.wrapping.unwrap(keyId, stored.key.value());
  }

  async getMany(keyIds: readonly string[]): Promise<ReadonlyMap<string, Buffer>> {
    const keys = new Map<string, Buffer>();
    if (keyIds.length === 0) return keys;
    const found = this.keys.find({ _id: { $in: [...new Set(keyIds)] } }, { projection: { key: 1 } });
    for await (const stored of found)
      keys.set(stored._id, this.wrapping.unwrap(stored._id, stored.key.value()));
    return keys;
  }

  async destroy(keyId: string): Promise<void> {
    await this.keys.deleteOne({ _id: keyId });
  }

  async destroyGroup(group: string): Promise<number> {
    return (await this.keys.deleteMany({ group })).deletedCount;
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}
