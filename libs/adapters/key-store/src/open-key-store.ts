// Chooses the key store from configuration: a MongoDB collection beside the MongoDB read store, a SQLite file under
// the data directory otherwise. The MongoDB adapter (and its driver) load only when chosen.
import { join } from 'node:path';
import type { PlatformConfig } from '#kernel';
import type { KeyStore } from './key-store.port.js';
import { SqliteKeyStore } from './sqlite/sqlite-key-store.js';

export type KeyStoreConfig = Pick<
  PlatformConfig,
  'readStore' | 'mongodbUri' | 'dataDir' | 'keyStoreMasterKey'
>;

export async function openKeyStore(config: KeyStoreConfig): Promise<KeyStore> {
  if (config.readStore === 'mongodb') {
    if (!config.mongodbUri) throw new Error('The MongoDB key store needs MONGODB_URI');
    const { MongoKeyStore } = await import('./mongodb/mongo-key-store.js');
    return MongoKeyStore.connect({ uri: config.mongodbUri, masterKey: config.keyStoreMasterKey });
  }
  return new SqliteKeyStore({ path: join(config.dataDir, 'keys.db'), masterKey: config.keyStoreMasterKey });
}
