// The abuse limits' hits in one MongoDB collection (`rate_limit_hits`) every api process shares: a document per key
// and member, `{ _id: key NUL member, key, at, expiresAt }`, upserted (a member's later hit replaces its earlier one),
// read by { key, at }, and removed by MongoDB's TTL monitor once its window is over (it runs every minute, so reads
// also filter on the window).
import { mongo, type Connection } from 'mongoose';
import { openMongoConnection } from '#kernel';
import { MAX_HITS_PER_KEY, type RateLimitStore } from '../rate-limit-store.port.js';

export interface MongoRateLimitStoreOptions {
  readonly uri: string;
  /** Database to use; default: the one named in the URI. */
  readonly dbName?: string;
  /** Default `rate_limit_hits`. */
  readonly collectionName?: string;
}

interface HitDocument {
  readonly _id: string;
  readonly key: string;
  readonly at: Date;
  readonly expiresAt: Date;
}

const DUPLICATE_KEY = 11000;

export class MongoRateLimitStore implements RateLimitStore {
  private constructor(
    private readonly connection: Connection,
    private readonly collection: mongo.Collection<HitDocument>,
  ) {}

  static async connect(options: MongoRateLimitStoreOptions): Promise<MongoRateLimitStore> {
    const { connection, db } = await openMongoConnection(options.uri, { dbName: options.dbName });
    try {
      const collection = db.collection<HitDocument>(options.collectionName ?? 'rate_limit_hits');
      await collection.createIndex({ key: 1, at: 1 });
      await collection.createIndex({ expiresAt: 1 }, { expireAfterSeconds: 0 });
      return new MongoRateLimitStore(connection, collection);
    } catch (error) {
      await connection.close();
      throw error;
    }
  }

  async hit(key: string, member: string, at: number, windowMs: number): Promise<number[]> {
    try {
      await this.collection.updateOne(
        { _id: idOf(key, member) },
        { $set: { key, at: new Date(at), expiresAt: new Date(at + windowMs) } },
        { upsert: true },
      );
    } catch (error) {
      // Two processes upserting the same new member race to insert it: the other one's hit stands for both.
      if (!(error instanceof mongo.MongoServerError && error.code === DUPLICATE_KEY)) throw error;
    }
    return this.hits(key, at - windowMs);
  }

  async hits(key: string, since: number): Promise<number[]> {
    const found = await this.collection
      .find(
        { key, at: { $gt: new Date(since) } },
        { projection: { at: 1 }, sort: { at: -1 }, limit: MAX_HITS_PER_KEY },
      )
      .toArray();
    return found.map((hit) => hit.at.getTime()).reverse();
  }

  async forget(key: string, member?: string): Promise<void> {
    if (member === undefined) await this.collection.deleteMany({ key });
    else await this.collection.deleteOne({ _id: idOf(key, member) });
  }

  async close(): Promise<void> {
    await this.connection.close();
  }
}

const idOf = (key: string, member: string) => `${key}\u0000${member}`;
