// The ReadStore contract against a real MongoDB, in a throwaway database, when MONGODB_URI is set.
import { randomUUID } from 'node:crypto';
import mongoose from 'mongoose';
import { skipWithReason } from '#testing/fixtures';
import { readStoreContract } from '../read-store.contract.js';
import { MongoReadStore } from './mongo-read-store.js';

const uri = process.env.MONGODB_URI;

if (uri) {
  const dbName = `contract_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  readStoreContract('mongodb', () => MongoReadStore.connect({ uri, dbName }));
  afterAll(async () => {
    const connection = await mongoose.createConnection(uri, { dbName }).asPromise();
    await connection.dropDatabase();
    await connection.close();
  });
} else {
  const suite = 'ReadStore contract: mongodb';
  skipWithReason(
    suite,
    'MONGODB_URI is not set (start MongoDB, e.g. docker compose -f docker/compose.yml up mongodb, and set MONGODB_URI=mongodb://localhost:27017/?directConnection=true)',
  );
  // Jest fails a file without tests: this one records why the contract did not run.
  it(`${suite} did not run: no MONGODB_URI`, () => expect(uri).toBeUndefined());
}
