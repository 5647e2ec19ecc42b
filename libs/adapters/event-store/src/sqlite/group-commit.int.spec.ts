// The embedded store's group commit: appends made in one turn of the event loop share a transaction, yet each keeps
// its own revision check, idempotency and error, and a failing one leaves nothing of itself behind: in the store's
// thread and in its commit thread alike.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IdempotencyMismatchError, WrongExpectedRevisionError } from '#kernel';
import { makeEvent, uniqueStream } from '#testing/fixtures';
import { SqliteEventStore } from './sqlite-event-store.js';

const types = async (store: SqliteEventStore, stream: string) =>
  (await store.readStream(stream)).map((event) => event.type);

// The compiled commit thread (dist/, built by `npm run test:int`): the same batches committed there.
const COMPILED_COMMIT_WORKER = new URL(
  '../../../../../dist/libs/adapters/event-store/src/sqlite/commit-thread.worker.js',
  import.meta.url,
);

describe.each([
  ['in its own thread', null],
  ['in the commit thread', COMPILED_COMMIT_WORKER],
] as const)('SqliteEventStore group commit (%s)', (_where, commitWorker) => {
  let store: SqliteEventStore;
  /** A store on a fresh file, committing every batch where this suite says, with `options` beside. */
  const fresh = (options: { maxBatchBytes?: number } = {}) => {
    const path = join(mkdtempSync(join(tmpdir(), 'es-')), 'events.db');
    return { path, store: new SqliteEventStore({ path, commitWorker, commitThreadMinBytes: 0, ...options }) };
  };
  beforeEach(() => {
    store = new SqliteEventStore({
      path: join(mkdtempSync(join(tmpdir(), 'es-')), 'events.db'),
      commitWorker,
      commitThreadMinBytes: 0,
    });
  });
  afterEach(() => store.close());

  it('lets one of two concurrent appends to a stream win and refuses the other, leaving none of it', async () => {
    const stream = uniqueStream();
    const outcomes = await Promise.allSettled([
      store.appendToStream(stream, [makeEvent('A1'), makeEvent('A2')], 'no_stream'),
      store.appendToStream(stream, [makeEvent('B1'), makeEvent('B2')], 'no_stream'),
    ]);
    expect(outcomes[0]).toMatchObject({ status: 'fulfilled', value: { nextRevision: 1 } });
    expect(outcomes[1]).toMatchObject({ status: 'rejected' });
    expect((outcomes[1] as PromiseRejectedResult).reason).toBeInstanceOf(WrongExpectedRevisionError);
    expect(await types(store, stream)).toEqual(['A1', 'A2']);
  });

  it('commits appends to different streams together, in the order they arrived', async () => {
    const streams = [uniqueStream(), uniqueStream(), uniqueStream()];
    const results = await Promise.all(
      streams.map((stream, index) => store.appendToStream(stream, [makeEvent(`E${index}`)], 'no_stream')),
    );
    const positions = results.map((result) => result.position);
    expect(positions).toEqual([positions[0], positions[0]! + 1, positions[0]! + 2]);
    expect((await store.readAll()).map((event) => event.type)).toEqual(['E0', 'E1', 'E2']);
  });

  it('commits the others when one member fails, even after it wrote part of its batch', async () => {
    const [first, failing, last] = [uniqueStream(), uniqueStream(), uniqueStream()];
    const taken = makeEvent('Taken');
    await store.appendToStream(uniqueStream(), [taken], 'no_stream');
    const outcomes = await Promise.allSettled([
      store.appendToStream(first, [makeEvent('First')], 'no_stream'),
      // Its first event is written before its second collides with an id stored elsewhere.
      store.appendToStream(failing, [makeEvent('Partial'), taken], 'no_stream'),
      store.appendToStream(last, [makeEvent('Wrong')], 3),
      store.appendToStream(last, [makeEvent('Last')], 'any'),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual([
      'fulfilled',
      'rejected',
      'rejected',
      'fulfilled',
    ]);
    expect((outcomes[1] as PromiseRejectedResult).reason).toBeInstanceOf(IdempotencyMismatchError);
    expect((outcomes[2] as PromiseRejectedResult).reason).toBeInstanceOf(WrongExpectedRevisionError);
    expect(await types(store, first)).toEqual(['First']);
    expect(await types(store, failing)).toEqual([]);
    expect(await types(store, last)).toEqual(['Last']);
    expect((await store.readAll()).map((event) => event.type)).toEqual(['Taken', 'First', 'Last']);
  });

  it('answers a batch re-sent in the same turn with the original positions', async () => {
    const stream = uniqueStream();
    const batch = [makeEvent('A'), makeEvent('B')];
    const [sent, resent] = await Promise.all([
      store.appendToStream(stream, batch, 'no_stream'),
      store.appendToStream(stream, batch, 'no_stream'),
    ]);
    expect(resent).toEqual(sent);
    expect(await types(store, stream)).toEqual(['A', 'B']);
  });

  it('sees the earlier appends of its batch when checking a revision', async () => {
    const stream = uniqueStream();
    const results = await Promise.all([
      store.appendToStream(stream, [makeEvent('A')], 'no_stream'),
      store.appendToStream(stream, [makeEvent('B')], 0),
      store.appendToStream(stream, [makeEvent('C')], 'stream_exists'),
    ]);
    expect(results.map((result) => result.nextRevision)).toEqual([0, 1, 2]);
    expect(await types(store, stream)).toEqual(['A', 'B', 'C']);
  });

  it('commits the appends accepted before it closes', async () => {
    const { path, store: closing } = fresh();
    const stream = uniqueStream();
    const appended = closing.appendToStream(stream, [makeEvent('Late')], 'no_stream');
    await closing.close();
    await expect(appended).resolves.toMatchObject({ nextRevision: 0 });
    const reopened = new SqliteEventStore({ path });
    expect(await types(reopened, stream)).toEqual(['Late']);
    await reopened.close();
  });

  it('commits a burst of large appends in bounded batches, one after another, in order', async () => {
    const { store: bounded } = fresh({ maxBatchBytes: 1000 });
    // Five appends of some 600 characters each, in one turn of the loop: no two fit in a batch of 1,000.
    const streams = Array.from({ length: 5 }, () => uniqueStream());
    // What the log holds when each append is told it is committed (read at once, before anything else runs).
    const stored: Promise<number>[] = [];
    const appended = streams.map((stream, index) =>
      bounded
        .appendToStream(stream, [makeEvent(`Big${index}`, { text: 'x'.repeat(600) })], 'no_stream')
        .then((result) => {
          stored[index] = bounded.readAll().then((events) => events.length);
          return result;
        }),
    );
    const positions = (await Promise.all(appended)).map((result) => result.position);
    expect(positions).toEqual(positions.map((_, index) => positions[0]! + index));
    // Each append was committed in a batch of its own: when the first was told, the others were not in the log yet.
    expect(await Promise.all(stored)).toEqual([1, 2, 3, 4, 5]);
    expect((await bounded.readAll()).map((event) => event.type)).toEqual(streams.map((_, i) => `Big${i}`));
    await bounded.close();
  });

  it('commits every append still queued behind the bound when it closes', async () => {
    const { path, store: closing } = fresh({ maxBatchBytes: 1000 });
    const appended = Array.from({ length: 4 }, (_, index) =>
      closing.appendToStream(
        uniqueStream(),
        [makeEvent(`Late${index}`, { text: 'y'.repeat(600) })],
        'no_stream',
      ),
    );
    await closing.close();
    await expect(Promise.all(appended)).resolves.toHaveLength(4);
    const reopened = new SqliteEventStore({ path });
    expect((await reopened.readAll()).map((event) => event.type)).toEqual([
      'Late0',
      'Late1',
      'Late2',
      'Late3',
    ]);
    await reopened.close();
  });

  it('refuses alone an append whose data cannot be encoded', async () => {
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    const stream = uniqueStream();
    const outcomes = await Promise.allSettled([
      store.appendToStream(uniqueStream(), [makeEvent('Circular', circular)], 'no_stream'),
      store.appendToStream(stream, [makeEvent('Fine')], 'no_stream'),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'fulfilled']);
    expect(await types(store, stream)).toEqual(['Fine']);
  });

  it('puts what arrives while a batch commits into the next batch, after it', async () => {
    const stream = uniqueStream();
    const first = store.appendToStream(stream, [makeEvent('A')], 'no_stream');
    await new Promise((resolve) => setImmediate(resolve));
    const later = [
      store.appendToStream(stream, [makeEvent('B')], 0),
      store.appendToStream(stream, [makeEvent('C')], 1),
    ];
    const results = await Promise.all([first, ...later]);
    expect(results.map((result) => result.nextRevision)).toEqual([0, 1, 2]);
    expect(await types(store, stream)).toEqual(['A', 'B', 'C']);
  });
});
