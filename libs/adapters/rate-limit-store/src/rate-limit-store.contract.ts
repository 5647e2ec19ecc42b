// What every RateLimitStore does, run against each adapter: the in-process one always, MongoDB's when MONGODB_URI is
// set. Times are given, not read from the clock.
import { randomUUID } from 'node:crypto';
import type { RateLimitStore } from './rate-limit-store.port.js';

const WINDOW = 60_000;

export function rateLimitStoreContract(name: string, open: () => Promise<RateLimitStore>): void {
  describe(`RateLimitStore contract: ${name}`, () => {
    let store: RateLimitStore;
    let key: string;
    beforeAll(async () => {
      store = await open();
    });
    afterAll(() => store.close());
    beforeEach(() => {
      key = `contract:${randomUUID()}`;
    });

    it('answers the hits of the window, oldest first, the new one included; older ones are past', async () => {
      expect(await store.hit(key, 'a', 1_000, WINDOW)).toEqual([1_000]);
      expect(await store.hit(key, 'b', 30_000, WINDOW)).toEqual([1_000, 30_000]);
      expect(await store.hit(key, 'c', 61_500, WINDOW)).toEqual([30_000, 61_500]);
      expect(await store.hits(key, 0)).toEqual([1_000, 30_000, 61_500]);
      expect(await store.hits(key, 30_000)).toEqual([61_500]);
    });

    it("a member's later hit replaces its earlier one; keys are counted apart", async () => {
      await store.hit(key, 'a', 1_000, WINDOW);
      await store.hit(key, 'b', 2_000, WINDOW);
      expect(await store.hit(key, 'a', 3_000, WINDOW)).toEqual([2_000, 3_000]);
      expect(await store.hits(`${key}:other`, 0)).toEqual([]);
      expect(await store.hit(`${key}:other`, 'a', 3_000, WINDOW)).toEqual([3_000]);
    });

    it("forgets a member's hit, or all of a key's", async () => {
      await store.hit(key, 'a', 1_000, WINDOW);
      await store.hit(key, 'b', 2_000, WINDOW);
      await store.forget(key, 'a');
      expect(await store.hits(key, 0)).toEqual([2_000]);
      await store.hit(key, 'c', 3_000, WINDOW);
      await store.forget(key);
      expect(await store.hits(key, 0)).toEqual([]);
    });

    it('two handles on one store see each other’s hits (two api processes)', async () => {
      const other = await open();
      try {
        await store.hit(key, 'a', 1_000, WINDOW);
        expect(await other.hit(key, 'b', 2_000, WINDOW)).toEqual([1_000, 2_000]);
      } finally {
        await other.close();
      }
    });
  });
}
