import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store';
import { SqliteReadStore } from '#read-store/sqlite/sqlite-read-store';
import { makeEvent, uniqueStream, waitUntil } from '#testing/fixtures';
import { ProjectionCache } from './projection-cache.js';
import { processLeaseOwner, ProjectionRunner } from './projection-runner.js';
import type { Projector } from './projector.js';

/** A projection of labels by id: what the cache keeps is read from it. */
const labels = (name: string): Projector => ({
  name,
  version: 1,
  collections: [{ name: `${name}_docs` }],
  eventTypes: [`${name}Set`],
  project: (event) => {
    const { id, text } = event.data as { id: string; text: string };
    return [{ kind: 'upsert', collection: `${name}_docs`, doc: { id, text } }];
  },
});

describe('ProjectionCache (a real runner over the embedded stores)', () => {
  let events: SqliteEventStore;
  let reads: SqliteReadStore;
  let runner: ProjectionRunner;

  const set = (projection: string, id: string, text: string) =>
    events.appendToStream(
      uniqueStream(projection),
      [makeEvent(`${projection}Set`, { id, text })],
      'no_stream',
    );
  const stored = async (projection: string, id: string) =>
    (await reads.reader<{ id: string; text: string }>(`${projection}_docs`).get(id))?.text;
  /** Reads through the cache, counting the reads that reach the read store. */
  const reader = (cache: ProjectionCache<string>, projection: string) => {
    const read = Object.assign(
      (id: string) =>
        cache.get(id, async () => {
          read.reads++;
          return stored(projection, id);
        }),
      { reads: 0 },
    );
    return read;
  };

  /** A read through the cache that returns `value` once released (a read racing with what happens meanwhile). */
  const held = (cache: ProjectionCache<string>, id: string, value: string) => {
    let open!: () => void;
    const read = cache.get(id, async () => {
      await new Promise<void>((resolve) => (open = resolve));
      return value;
    });
    return {
      release: () => {
        open();
        return read;
      },
    };
  };

  beforeEach(async () => {
    events = new SqliteEventStore({ path: ':memory:', pollIntervalMs: 10 });
    reads = new SqliteReadStore({ path: ':memory:', generationCacheMs: 0 });
    runner = new ProjectionRunner(events, reads, [labels('colours'), labels('shapes')], {
      owner: processLeaseOwner('host-a'),
    });
    runner.start();
    await waitUntil(() => runner.isLive('colours') && runner.isLive('shapes'));
  });
  afterEach(async () => {
    await runner.stop();
    await events.close();
    await reads.close();
  });

  it('keeps a value until its projection applies a batch here, whatever other projections do', async () => {
    await set('colours', 'sky', 'blue');
    await waitUntil(async () => (await stored('colours', 'sky')) === 'blue');
    const cache = new ProjectionCache<string>(runner, 'colours');
    const read = reader(cache, 'colours');
    expect(await read('sky')).toBe('blue');
    expect(await read('sky')).toBe('blue');
    expect(read.reads).toBe(1);

    await set('shapes', 'sky', 'dome');
    await waitUntil(async () => (await stored('shapes', 'sky')) === 'dome');
    expect(await read('sky')).toBe('blue');
    expect(read.reads).toBe(1);

    await set('colours', 'sky', 'grey');
    await waitUntil(async () => (await stored('colours', 'sky')) === 'grey');
    expect(await read('sky')).toBe('grey');
    expect(read.reads).toBe(2);
  });

  it('keeps a value read from two projections until either applies a batch here', async () => {
    await set('colours', 'hat', 'red');
    await set('shapes', 'hat', 'cone');
    await waitUntil(
      async () => (await stored('shapes', 'hat')) === 'cone' && (await stored('colours', 'hat')) === 'red',
    );
    const cache = new ProjectionCache<string>(runner, ['colours', 'shapes']);
    let reads = 0;
    const both = (id: string) =>
      cache.get(id, async (local) => {
        expect(local).toBe(true);
        reads++;
        return `${await stored('colours', id)} ${await stored('shapes', id)}`;
      });
    expect(await both('hat')).toBe('red cone');
    expect(await both('hat')).toBe('red cone');
    expect(reads).toBe(1);

    await set('shapes', 'hat', 'brim');
    await waitUntil(async () => (await stored('shapes', 'hat')) === 'brim');
    expect(await both('hat')).toBe('red brim');
    expect(reads).toBe(2);
    await set('colours', 'hat', 'black');
    await waitUntil(async () => (await stored('colours', 'hat')) === 'black');
    expect(await both('hat')).toBe('black brim');
    expect(reads).toBe(3);

    // Not local (nor kept, remoteTtlMs 0) unless every one of its projections is live here.
    const partly = new ProjectionCache<string>(runner, ['colours', 'not-run-here'], { remoteTtlMs: 0 });
    const locals: boolean[] = [];
    const read = () =>
      partly.get('hat', async (local) => {
        locals.push(local);
        return 'x';
      });
    await read();
    await read();
    expect(locals).toEqual([false, false]);
  });

  it('drops the entries before a read-your-writes wait on the batch can end', async () => {
    const cache = new ProjectionCache<string>(runner, 'colours');
    await set('colours', 'sea', 'green');
    await waitUntil(async () => (await stored('colours', 'sea')) === 'green');
    const read = reader(cache, 'colours');
    expect(await read('sea')).toBe('green');
    // The runner's progress is what a waiter wakes on: by the time anything awaiting it runs, the entry is gone.
    const progressed = new Promise<void>((resolve) =>
      runner.on('progress', (progress) => progress.name === 'colours' && resolve()),
    );
    await set('colours', 'sea', 'blue');
    await progressed;
    expect(await read('sea')).toBe('blue');
  });

  it('does not keep what a read got while a batch of its projection was applied, nor undefined', async () => {
    const cache = new ProjectionCache<string>(runner, 'colours');
    const slow = held(cache, 'leaf', 'green (read before the batch)');
    await set('colours', 'leaf', 'red');
    await waitUntil(async () => (await stored('colours', 'leaf')) === 'red');
    expect(await slow.release()).toBe('green (read before the batch)');
    const read = reader(cache, 'colours');
    expect(await read('leaf')).toBe('red');
    expect(await read('nothing')).toBeUndefined();
    expect(await read('nothing')).toBeUndefined();
    expect(read.reads).toBe(3);
  });

  it('trusts an entry remoteTtlMs where the projection does not run here; 0 keeps nothing', async () => {
    await set('colours', 'rose', 'red');
    await waitUntil(async () => (await stored('colours', 'rose')) === 'red');
    const never = reader(new ProjectionCache<string>(undefined, 'colours', { remoteTtlMs: 0 }), 'colours');
    expect(await never('rose')).toBe('red');
    expect(await never('rose')).toBe('red');
    expect(never.reads).toBe(2);
    const brief = reader(
      new ProjectionCache<string>(undefined, 'colours', { remoteTtlMs: 60_000 }),
      'colours',
    );
    await brief('rose');
    await brief('rose');
    expect(brief.reads).toBe(1);
  });

  it('keeps what this process set, and a read in flight does not overwrite it', async () => {
    const cache = new ProjectionCache<string>(runner, 'colours');
    const slow = held(cache, 'limit', 'old');
    cache.set('limit', 'new');
    expect(await slow.release()).toBe('old');
    expect(await cache.get('limit', async () => 'read again')).toBe('new');
  });
});
