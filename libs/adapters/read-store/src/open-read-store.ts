// Chooses the read store from configuration: MongoDB when configured, else the embedded SQLite file under the data
// directory. The MongoDB adapter (and its driver) load only when chosen.
import { join } from 'node:path';
import type { PlatformConfig } from '#kernel';
import type { ReadStore } from './read-store.port.js';
import { SqliteReadStore } from './sqlite/sqlite-read-store.js';

export type ReadStoreConfig = Pick<PlatformConfig, 'readStore' | 'mongodbUri' | 'dataDir'>;

export async function openReadStore(config: ReadStoreConfig): Promise<ReadStore> {
  if (config.readStore === 'mongodb') {
    const { MongoReadStore } = await import('./mongodb/mongo-read-store.js');
    return MongoReadStore.connect({ uri: config.mongodbUri! });
  }
  return new SqliteReadStore({ path: join(config.dataDir, 'read.db') });
}
