// The MongoDB key store: the shared contract and the stored document's shape against a real MongoDB, in a
// throwaway database, when MONGODB_URI is set.
import { randomUUID } from 'node:crypto';
import type { mongo } from 'mongoose';
import { openMongoConnection, type MongoConnection } from '#kernel';
import { skipWithReason } from '#testing/fixtures';
import { keyStoreContract } from '../key-store.contract.js';
import { MongoKeyStore, type DataKeyDocument } from './mongo-key-store.js';

const uri = process.env.MONGODB_URI;
const suite = 'KeyStore contract: mongodb';

if (uri) {
  const dbName = `keys_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  let opened: MongoConnection;
  let db: mongo.Db;
  beforeAll(async () => {
    opened = await openMongoConnection(uri, { dbName });
    db = opened.db;
  });
  afterAll(async () => {
    await db.dropDatabase();
    await opened.connection.close();
  });

  keyStoreContract('mongodb', async () => ({
    open: (masterKey) => MongoKeyStore.connect({ uri, dbName, collectionName: 'contract', masterKey }),
    storedBytes: async (keyId) => {
      const stored = await db.collection<DataKeyDocument>('contract').findOne({ _id: keyId });
      return stored ? Buffer.from(stored.key.value()) : null;
    },
  }));

  describe('MongoKeyStore specifics', () => {
    let store: MongoKeyStore;
    beforeAll(async () => {
      store = await MongoKeyStore.connect({ uri, dbName });
    });
    afterAll(async () => {
      await store.close();
    });

    it('keeps each key as { _id: keyId, group, key, createdAt } in data_keys, indexed on group', async () => {
      const before = Date.now();
      const key = await store.obtain('conversation_1', 'user_1');
      const stored = await db.collection<DataKeyDocument>('data_keys').findOne({ _id: 'conversation_1' });
      expect(stored).toMatchObject({ _id: 'conversation_1', group: 'user_1' });
      expect(Buffer.from(stored!.key.value()).equals(key)).toBe(true);
      expect(stored!.createdAt.getTime()).toBeGreaterThanOrEqual(before - 1000);
      const indexes = await db.collection('data_keys').indexes();
      expect(indexes.map((index) => index.key)).toContainEqual({ group: 1 });
    });

    it('does not move a key or its creation time when it is obtained again', async () => {
      await store.obtain('conversation_2', 'user_2');
      const first = await db.collection<DataKeyDocument>('data_keys').findOne({ _id: 'conversation_2' });
      await store.obtain('conversation_2', 'user_other');
      expect(await db.collection<DataKeyDocument>('data_keys').findOne({ _id: 'conversation_2' })).toEqual(
        first,
      );
    });
  });
} else {
  skipWithReason(
    suite,
    'MONGODB_URI is not set (start MongoDB, e.g. docker compose -f docker/compose.yml up mongodb, and set MONGODB_URI=mongodb://localhost:27017/?directConnection=true)',
  );
  // Jest fails a file without tests: this one records why the contract did not run.
  it(`${suite} did not run: no MONGODB_URI`, () => expect(uri).toBeUndefined());
}
