import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WrongExpectedRevisionError } from '#kernel';
import { CountingUpcasters, makeEvent, uniqueStream, waitUntil } from '#testing/fixtures';
import { eventStoreContract } from '../event-store.contract.js';
import { UpcasterRegistry } from '../upcasters.js';
import { SqliteEventStore } from './sqlite-event-store.js';

// The compiled commit thread (dist/, built by `npm run test:int`); from the TypeScript sources there is none.
const COMPILED_COMMIT_WORKER = new URL(
  '../../../../../dist/libs/adapters/event-store/src/sqlite/commit-thread.worker.js',
  import.meta.url,
);
const freshPath = () => join(mkdtempSync(join(tmpdir(), 'es-')), 'events.db');

eventStoreContract('sqlite (:memory:)', async () => new SqliteEventStore({ path: ':memory:' }));
eventStoreContract(
  'sqlite (WAL file)',
  async () => new SqliteEventStore({ path: freshPath(), commitWorker: null }),
);
eventStoreContract(
  'sqlite (WAL file, every batch committed in the commit thread)',
  async () =>
    new SqliteEventStore({
      path: freshPath(),
      commitWorker: COMPILED_COMMIT_WORKER,
      commitThreadMinBytes: 0,
    }),
);

describe('SqliteEventStore commit thread', () => {
  const big = (label: string) => makeEvent('Big', { text: label.repeat(300_000) });

  it('commits a large batch in the commit thread: the event loop runs on meanwhile, and it is on disk once appended', async () => {
    const path = freshPath();
    const store = new SqliteEventStore({ path, commitWorker: COMPILED_COMMIT_WORKER });
    const stream = uniqueStream();
    const order: string[] = [];
    // Queued after the batch's own turn (the group commit's): in this thread the append would settle before it.
    const appending = store.appendToStream(stream, [big('a')], 'no_stream');
    setImmediate(() => order.push('event loop'));
    const { positions } = await appending;
    order.push('appended');
    expect(order).toEqual(['event loop', 'appended']);
    const other = new SqliteEventStore({ path, commitWorker: null });
    expect((await other.readStream(stream)).map((event) => event.position)).toEqual(positions);
    await other.close();
    // A small one commits in this thread, before the loop turns.
    const smallOrder: string[] = [];
    const small = store.appendToStream(stream, [makeEvent('Small')], 0);
    setImmediate(() => smallOrder.push('event loop'));
    await small;
    smallOrder.push('appended');
    expect(smallOrder).toEqual(['appended']);
    await store.close();
  });

  it('commits a batch in its own thread when the commit thread ends without committing it', async () => {
    const store = new SqliteEventStore({
      path: freshPath(),
      commitWorker: new URL('data:text/javascript,process.exit(3)'),
      commitThreadMinBytes: 0,
    });
    const stream = uniqueStream();
    const { positions } = await store.appendToStream(stream, [makeEvent('Kept')], 'no_stream');
    expect((await store.readStream(stream)).map((event) => [event.type, event.position])).toEqual([
      ['Kept', positions[0]],
    ]);
    await store.close();
  });

  it('keeps positions in arrival order while a batch commits in the thread, refuses a stale revision there, and tells subscriptions once', async () => {
    const store = new SqliteEventStore({ path: freshPath(), commitWorker: COMPILED_COMMIT_WORKER });
    const stream = uniqueStream();
    const seen: string[] = [];
    const subscription = store.subscribeToAll({
      onEvents: async (events) => {
        seen.push(...events.map((event) => event.type));
      },
    });
    const bigEvent = big('b');
    const first = store.appendToStream(stream, [bigEvent], 'no_stream');
    // Arrives while the first batch is in the thread: the next batch, committed after it.
    await new Promise((resolve) => setImmediate(resolve));
    const second = store.appendToStream(stream, [makeEvent('After')], 0);
    const stale = store.appendToStream(stream, [big('c')], 'no_stream');
    const [a, b] = await Promise.all([first, second]);
    expect(b.positions[0]).toBeGreaterThan(a.positions[0]!);
    await expect(stale).rejects.toThrow(WrongExpectedRevisionError);
    await waitUntil(() => seen.length === 2);
    expect(seen).toEqual(['Big', 'After']);
    // The same batch sent again (a retry) is found already stored, in the thread as in this one.
    expect((await store.appendToStream(stream, [bigEvent], 'no_stream')).positions).toEqual(a.positions);
    await subscription.stop();
    await store.close();
  });
});

describe('SqliteEventStore specifics', () => {
  it('keeps events across a reopen of the same file, including idempotency of old batches', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'es-')), 'events.db');
    const stream = uniqueStream();
    const batch = [makeEvent('A')];
    const first = new SqliteEventStore({ path });
    const appended = await first.appendToStream(stream, batch, 'no_stream');
    await first.close();
    const second = new SqliteEventStore({ path });
    expect((await second.readStream(stream)).map((e) => e.type)).toEqual(['A']);
    expect((await second.appendToStream(stream, batch, 'no_stream')).positions).toEqual(appended.positions);
    await second.close();
  });

  it('runs registered upcasters on read, leaving the stored JSON as it was', async () => {
    const upcasters = new UpcasterRegistry().register({
      eventType: 'NameGiven',
      fromVersion: 1,
      upcast: (data) => ({ fullName: (data as { name: string }).name }),
    });
    const store = new SqliteEventStore({ path: ':memory:', upcasters });
    const stream = uniqueStream();
    await store.appendToStream(stream, [makeEvent('NameGiven', { name: 'Ada' })], 'no_stream');
    const [event] = await store.readStream(stream);
    expect(event!.data).toEqual({ fullName: 'Ada' });
    expect(event!.metadata.schemaVersion).toBe(2);
    await store.close();
  });

  it('delivers what another process appends to the same file (its poll of the head wakes the subscriptions)', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'es-')), 'events.db');
    const reader = new SqliteEventStore({ path, pollIntervalMs: 10 });
    const writer = new SqliteEventStore({ path });
    const received: string[][] = [[], []];
    const subscriptions = received.map((into) =>
      reader.subscribeToAll({
        after: 0,
        onEvents: async (events) => {
          into.push(...events.map((event) => event.type));
        },
      }),
    );
    await writer.appendToStream(uniqueStream(), [makeEvent('First')], 'no_stream');
    await waitUntil(() => received.every((types) => types.length === 1));
    await reader.appendToStream(uniqueStream(), [makeEvent('Local')], 'no_stream');
    await writer.appendToStream(uniqueStream(), [makeEvent('Second'), makeEvent('Third')], 'no_stream');
    await waitUntil(() => received.every((types) => types.length === 4));
    for (const types of received) expect(types).toEqual(['First', 'Local', 'Second', 'Third']);
    await Promise.all(subscriptions.map((subscription) => subscription.stop()));
    await writer.close();
    await reader.close();
  });

  it('parses the events one append wakes every subscription for once, and delivers them all to each', async () => {
    const upcasters = new CountingUpcasters();
    const store = new SqliteEventStore({ path: ':memory:', upcasters });
    await store.appendToStream(uniqueStream(), [makeEvent('Before')], 'no_stream');
    const received = Array.from({ length: 5 }, () => [] as string[]);
    let caughtUp = 0;
    const subscriptions = received.map((into) =>
      store.subscribeToAll({
        after: 0,
        onEvents: async (events) => {
          into.push(...events.map((event) => event.type));
        },
        onCaughtUp: () => caughtUp++,
      }),
    );
    await waitUntil(() => caughtUp === 5);
    upcasters.parsed = 0;
    await store.appendToStream(
      uniqueStream(),
      Array.from({ length: 10 }, (_, i) => makeEvent(`E${i}`)),
      'no_stream',
    );
    const expected = ['Before', ...Array.from({ length: 10 }, (_, i) => `E${i}`)];
    await waitUntil(() => received.every((types) => types.length === expected.length));
    for (const types of received) expect(types).toEqual(expected);
    expect(upcasters.parsed).toBe(10);
    await Promise.all(subscriptions.map((subscription) => subscription.stop()));
    await store.close();
  });

  it('passes over, without a read, a local append of types a waiting subscription does not read', async () => {
    const upcasters = new CountingUpcasters();
    const store = new SqliteEventStore({ path: ':memory:', upcasters });
    const batches: string[][] = [];
    const passed: number[] = [];
    let caughtUp = false;
    const subscription = store.subscribeToAll({
      after: 0,
      eventTypes: new Set(['Read']),
      onEvents: async (events) => {
        batches.push(events.map((event) => event.type));
      },
      onPassed: (position) => passed.push(position),
      onCaughtUp: () => {
        caughtUp = true;
      },
    });
    await waitUntil(() => caughtUp);
    const stream = uniqueStream();
    const other = await store.appendToStream(stream, [makeEvent('Other'), makeEvent('Other')], 'no_stream');
    // Told synchronously with the commit: nothing was read or parsed for it.
    expect(passed).toEqual([other.position]);
    expect(upcasters.parsed).toBe(0);
    // Appends committed together, one of them refused (its positions rolled back): passed over as one range.
    const together = await Promise.allSettled([
      store.appendToStream(stream, [makeEvent('Other')], 1),
      store.appendToStream(stream, [makeEvent('Refused')], 0),
      store.appendToStream(uniqueStream(), [makeEvent('Other')], 'no_stream'),
    ]);
    expect(together.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(passed).toEqual([other.position, other.position + 2]);
    const read = await store.appendToStream(stream, [makeEvent('Other'), makeEvent('Read')], 2);
    await waitUntil(() => batches.length === 1);
    // A batch with a type it reads is read whole, from the position passed to on.
    expect(batches).toEqual([['Other', 'Read']]);
    expect(read.positions[0]).toBe(other.position + 3);
    expect(upcasters.parsed).toBe(2);
    await subscription.stop();
    await store.close();
  });

  it('reads an append of other types as a batch when the subscription is behind it', async () => {
    const store = new SqliteEventStore({ path: ':memory:' });
    await store.appendToStream(uniqueStream(), [makeEvent('Read')], 'no_stream');
    const batches: string[][] = [];
    const passed: number[] = [];
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const subscription = store.subscribeToAll({
      after: 0,
      eventTypes: new Set(['Read']),
      onEvents: async (events) => {
        batches.push(events.map((event) => event.type));
        await held;
      },
      onPassed: (position) => passed.push(position),
    });
    await waitUntil(() => batches.length === 1);
    // Appended while the first batch is still being applied: not passed over, read in order after it.
    await store.appendToStream(uniqueStream(), [makeEvent('Other')], 'no_stream');
    release();
    await waitUntil(() => batches.length === 2);
    expect(batches).toEqual([['Read'], ['Other']]);
    expect(passed).toEqual([]);
    await subscription.stop();
    await store.close();
  });
});
