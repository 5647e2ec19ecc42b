// The production adapters on MongoDB (read store, key store, GridFS blob store) each open a connection of their own
// through mongoose and work on its driver's Db: one MongoDB client library, mongoose's, whose driver (`mongo` in
// mongoose's exports) is the only one installed. mongoose is imported when a connection is first opened, so an
// embedded instance never loads it.
import type { Connection, mongo } from 'mongoose';

export interface MongoConnection {
  /** Closing it closes the driver's client and its pool. */
  readonly connection: Connection;
  readonly db: mongo.Db;
}

export interface MongoConnectionOptions {
  /** Database to use; default: the one named in the URI. */
  readonly dbName?: string | undefined;
  /** Drop undefined values nested in documents (as JSON does) instead of storing them as null. */
  readonly ignoreUndefined?: boolean;
}

/** A private connection, not mongoose's global one, so each adapter's lifecycle (close) is its own. */
export async function openMongoConnection(
  uri: string,
  options: MongoConnectionOptions = {},
): Promise<MongoConnection> {
  const { default: mongoose } = await import('mongoose');
  const connection = await mongoose
    .createConnection(uri, {
      ...(options.ignoreUndefined ? { ignoreUndefined: true } : {}),
      ...(options.dbName === undefined ? {} : { dbName: options.dbName }),
    })
    .asPromise();
  const db = connection.db;
  if (!db) {
    await connection.close();
    throw new Error('MongoDB connection opened without a database');
  }
  return { connection, db };
}
