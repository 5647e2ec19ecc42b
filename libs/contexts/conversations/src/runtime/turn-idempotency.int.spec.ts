// The in-flight marker of a keyed turn is a lease in the shared read store: a second claim is 409 until the first is
// released; the claim is renewed while the turn runs; a holder that died (no renewal) stops blocking once its lease
// expires.
import { loadConfig, PlatformError } from '#kernel';
import { SqliteReadStore } from '#read-store/sqlite/sqlite-read-store';
import { waitUntil } from '#testing/fixtures';
import { inFlightLease, TurnIdempotency } from './turn-idempotency.js';

const IN_FLIGHT_MS = 200;

describe('TurnIdempotency.claim (a keyed turn in flight)', () => {
  const readStore = new SqliteReadStore({ path: ':memory:' });
  const config = { ...loadConfig({}), idempotencyInFlightMs: IN_FLIGHT_MS };
  // Two api processes share the read store: two instances over one store.
  const here = new TurnIdempotency(readStore, config);
  const there = new TurnIdempotency(readStore, config);
  const key = { userId: 'usr_1', agentId: 'agt_1', idempotencyKey: 'k' };
  afterAll(() => readStore.close());

  const code = (promise: Promise<unknown>) =>
    promise.then(
      () => 'claimed',
      (error: unknown) => (error instanceof PlatformError ? error.code : String(error)),
    );

  it('refuses a second claim of the same key with 409 until the first is released', async () => {
    const ids = here.ids(key);
    const release = await here.claim(ids);
    expect(await code(there.claim(there.ids(key)))).toBe('idempotency_in_flight');
    expect(await code(here.claim(ids))).toBe('idempotency_in_flight');
    // Another key is not held.
    const other = await there.claim(there.ids({ ...key, idempotencyKey: 'other' }));
    await other();
    await release();
    const again = await there.claim(there.ids(key));
    await again();
  });

  it('keeps the claim past IDEMPOTENCY_IN_FLIGHT_MS while the turn runs', async () => {
    const ids = here.ids({ ...key, idempotencyKey: 'long' });
    const release = await here.claim(ids);
    const first = (await readStore.leaseHolder(inFlightLease(ids.seed)))!;
    // Renewed: the lease's expiry moves past the first one's.
    await waitUntil(
      async () =>
        ((await readStore.leaseHolder(inFlightLease(ids.seed)))?.expiresAt ?? 0) >
        first.expiresAt + IN_FLIGHT_MS,
      10_000,
    );
    expect(await code(there.claim(ids))).toBe('idempotency_in_flight');
    await release();
    expect(await readStore.leaseHolder(inFlightLease(ids.seed))).toBeNull();
  });

  it('stops blocking once the lease of a process that died expires', async () => {
    const ids = here.ids({ ...key, idempotencyKey: 'crashed' });
    // What a killed process leaves: its last lease, never renewed nor released.
    expect(await readStore.acquireLease(inFlightLease(ids.seed), 'turn_dead', IN_FLIGHT_MS)).toBe(true);
    expect(await code(there.claim(ids))).toBe('idempotency_in_flight');
    await waitUntil(async () => (await readStore.leaseHolder(inFlightLease(ids.seed))) === null, 10_000);
    const release = await there.claim(ids);
    await release();
  });
});
