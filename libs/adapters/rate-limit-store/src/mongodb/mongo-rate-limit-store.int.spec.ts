// The MongoDB rate limit store: the shared contract against a real MongoDB, in a throwaway database, when MONGODB_URI
// is set.
import { randomUUID } from 'node:crypto';
import { openMongoConnection } from '#kernel';
import { rateLimitStoreContract } from '../rate-limit-store.contract.js';
import { MongoRateLimitStore } from './mongo-rate-limit-store.js';

const uri = process.env.MONGODB_URI;
const suite = 'RateLimitStore contract: mongodb';

if (uri) {
  const dbName = `limits_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  rateLimitStoreContract('mongodb', () => MongoRateLimitStore.connect({ uri, dbName }));
  afterAll(async () => {
    const { connection } = await openMongoConnection(uri, { dbName });
    await connection.dropDatabase();
    await connection.close();
  });
} else {
  // The kernel imports nothing of ours (#testing's skipWithReason included): the same SKIP line, written here.
  process.stdout.write(
    `SKIP ${suite}: MONGODB_URI is not set (start MongoDB, e.g. docker compose -f docker/compose.yml up mongodb, and set MONGODB_URI=mongodb://localhost:27017/?directConnection=true)\n`,
  );
  // Jest fails a file without tests: this one records why the contract did not run.
  it(`${suite} did not run: no MONGODB_URI`, () => expect(uri).toBeUndefined());
}
