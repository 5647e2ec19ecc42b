import { InProcessRateLimitStore } from './in-process/in-process-rate-limit-store.js';
import { MAX_HITS_PER_KEY } from './rate-limit-store.port.js';
import { rateLimitStoreContract } from './rate-limit-store.contract.js';
import { openRateLimitStore } from './open-rate-limit-store.js';

// One store behind every handle: what the processes of one embedded instance (there is one) share.
const shared = new InProcessRateLimitStore();
rateLimitStoreContract('in-process', () => Promise.resolve(shared));

describe('InProcessRateLimitStore bounds', () => {
  it('keeps the last hits of a key and the most recently hit keys', async () => {
    const store = new InProcessRateLimitStore(2);
    for (let i = 0; i <= MAX_HITS_PER_KEY; i++) await store.hit('k', `m${i}`, i + 1, 1e9);
    expect(await store.hits('k', 0)).toHaveLength(MAX_HITS_PER_KEY);
    expect((await store.hits('k', 0))[0]).toBe(2);
    await store.hit('x', 'm', 1, 1e9);
    await store.hit('k', 'n', 5_000, 1e9);
    await store.hit('y', 'm', 1, 1e9);
    expect(await store.hits('x', 0)).toEqual([]);
    expect(await store.hits('k', 0)).toHaveLength(MAX_HITS_PER_KEY);
  });
});

describe('openRateLimitStore', () => {
  it('counts in process when embedded; with the MongoDB engines it needs MONGODB_URI', async () => {
    expect(await openRateLimitStore({ readStore: 'sqlite', mongodbUri: undefined })).toBeInstanceOf(
      InProcessRateLimitStore,
    );
    await expect(openRateLimitStore({ readStore: 'mongodb', mongodbUri: undefined })).rejects.toThrow(
      /MONGODB_URI/,
    );
  });
});
