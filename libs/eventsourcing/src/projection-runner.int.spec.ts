import { SqliteEventStore } from '#event-store';
import { SqliteReadStore } from '#read-store';
import type { EventEnvelope } from '#kernel';
import { makeEvent, uniqueStream, waitUntil } from '#testing/fixtures';
import { isDeadLocalHolder, processLeaseOwner, ProjectionRunner } from './projection-runner.js';
import type { Projector } from './projector.js';

/** Counts Tick events with an increment: any duplicate or gap in delivery shows in the count. */
const counter = (name = 'counter'): Projector => ({
  name,
  version: 1,
  collections: [{ name: `${name.replace(/-/g, '_')}_docs` }],
  eventTypes: ['Tick'],
  project: () => [
    { kind: 'increment', collection: `${name.replace(/-/g, '_')}_docs`, id: 'ticks', by: { count: 1 } },
  ],
});

const labels = (version: number, delayMs = 0): Projector => ({
  name: 'labels',
  version,
  collections: [{ name: 'labels' }],
  eventTypes: ['Labelled'],
  async project(event: EventEnvelope) {
    if (delayMs) await new Promise((resolve) => setTimeout(resolve, delayMs));
    const { id, text } = event.data as { id: string; text: string };
    return [
      { kind: 'upsert', collection: 'labels', doc: { id, text: version === 1 ? text : text.toUpperCase() } },
    ];
  },
});

const ticks = async (store: SqliteEventStore, n: number) => {
  const stream = uniqueStream('tick');
  await store.appendToStream(
    stream,
    Array.from({ length: n }, () => makeEvent('Tick')),
    'no_stream',
  );
};

describe('ProjectionRunner', () => {
  let events: SqliteEventStore;
  let reads: SqliteReadStore;
  const runners: ProjectionRunner[] = [];
  const runner = (projectors: Projector[], owner = processLeaseOwner('host-a')) => {
    const created = new ProjectionRunner(events, reads, projectors, {
      owner,
      batchSize: 7,
      leaseTtlMs: 300,
      retireGraceMs: 10,
    });
    runners.push(created);
    created.start();
    return created;
  };
  const count = async (name = 'counter') =>
    (await reads.reader<{ id: string; count: number }>(`${name}_docs`).get('ticks'))?.count ?? 0;

  beforeEach(() => {
    events = new SqliteEventStore({ path: ':memory:', pollIntervalMs: 10 });
    reads = new SqliteReadStore({ path: ':memory:', generationCacheMs: 0 });
  });
  afterEach(async () => {
    await Promise.all(runners.splice(0).map((r) => r.stop()));
  });

  it('catches up, goes live, and resumes from its checkpoint without duplicates or gaps', async () => {
    await ticks(events, 50);
    const first = runner([counter()]);
    expect(await first.caughtUp(5000)).toBe(true);
    expect(await count()).toBe(50);
    await ticks(events, 5);
    await waitUntil(async () => (await count()) === 55);
    expect(first.status()[0]).toMatchObject({
      state: 'live',
      checkpoint: await events.headPosition(),
      liveGeneration: 1,
    });
    await first.stop();

    await ticks(events, 10);
    const second = runner([counter()]);
    await second.caughtUp(5000);
    await waitUntil(async () => (await count()) === 65);
    await ticks(events, 3);
    await waitUntil(async () => (await count()) === 68);
    expect(await count()).toBe(68);
  });

  it('rebuilds a new version beside the live one and switches without ever serving an empty model', async () => {
    const stream = uniqueStream('label');
    await events.appendToStream(
      stream,
      Array.from({ length: 60 }, (_, i) => makeEvent('Labelled', { id: `l${i}`, text: `label ${i}` })),
      'no_stream',
    );
    const v1 = runner([labels(1)]);
    await v1.caughtUp(5000);
    expect(await reads.reader<{ id: string; text: string }>('labels').get('l59')).toEqual({
      id: 'l59',
      text: 'label 59',
    });
    await v1.stop();

    const v2 = runner([labels(2, 2)]);
    const observed = new Set<string>();
    while ((await reads.projection('labels'))?.liveGeneration !== 2) {
      const doc = await reads.reader<{ id: string; text: string }>('labels').get('l0');
      expect(doc).not.toBeNull();
      observed.add(doc!.text);
      await new Promise((resolve) => setTimeout(resolve, 3));
    }
    expect(observed).toContain('label 0');
    expect(await reads.reader<{ id: string; text: string }>('labels').get('l59')).toEqual({
      id: 'l59',
      text: 'LABEL 59',
    });
    expect(v2.status()[0]).toMatchObject({ state: 'live', liveGeneration: 2, rebuilding: null });
    expect(await reads.projection('labels')).toMatchObject({
      liveGeneration: 2,
      liveVersion: 2,
      buildingGeneration: null,
    });
    await waitUntil(
      async () => (await reads.readerAt('labels', { name: 'labels', generation: 1 }).count()) === 0,
    );

    await events.appendToStream(stream, [makeEvent('Labelled', { id: 'late', text: 'late' })], 59);
    await waitUntil(
      async () => (await reads.reader<{ id: string; text: string }>('labels').get('late'))?.text === 'LATE',
    );
  });

  it('rebuilds on request (operators, CLI) into the next generation', async () => {
    await ticks(events, 20);
    const live = runner([counter()]);
    await live.caughtUp(5000);
    await reads.saveProjection({ name: 'counter', rebuildRequested: true });
    await waitUntil(async () => (await reads.projection('counter'))?.liveGeneration === 2, 5000);
    expect(await count()).toBe(20);
    expect((await reads.projection('counter'))?.rebuildRequested).toBe(false);
  });

  it('isolates a failing projector: it retries and reports, the others keep up', async () => {
    const poisoned: Projector = {
      ...counter('poisoned'),
      project: (event) => {
        if (event.type === 'Tick') throw new Error('cannot project this');
        return [];
      },
    };
    await ticks(events, 5);
    const both = runner([poisoned, counter()]);
    await waitUntil(() => both.status().find((s) => s.name === 'poisoned')?.state === 'failed');
    await ticks(events, 5);
    await waitUntil(async () => (await count()) === 10);
    expect(both.status().find((s) => s.name === 'poisoned')).toMatchObject({
      state: 'failed',
      lastError: 'cannot project this',
    });
    expect(both.status().find((s) => s.name === 'counter')).toMatchObject({ state: 'live' });
  });

  it('never applies the same projector in two runners at once', async () => {
    const a = runner([counter()], processLeaseOwner('host-a'));
    const b = runner([counter()], processLeaseOwner('host-b'));
    await waitUntil(() => [a, b].some((r) => r.status()[0]!.state === 'live'));
    await waitUntil(() => [a, b].some((r) => r.status()[0]!.state === 'standby'));
    for (let i = 0; i < 10; i++) await ticks(events, 10);
    await waitUntil(async () => (await count()) === 100);
    const holder = [a, b].find((r) => r.status()[0]!.state === 'live')!;
    await holder.stop();
    const other = holder === a ? b : a;
    await waitUntil(() => other.status()[0]!.state === 'live', 5000);
    await ticks(events, 10);
    await waitUntil(async () => (await count()) === 110);
    expect(await count()).toBe(110);
  });

  it('tells a dead local lease holder from a live or remote one', () => {
    const self = processLeaseOwner('host-a');
    expect(isDeadLocalHolder(self, self)).toBe(false);
    expect(isDeadLocalHolder(`host-a/${process.pid}/previous`, self)).toBe(true);
    expect(isDeadLocalHolder('host-a/999999999/x', self)).toBe(true);
    expect(isDeadLocalHolder(`host-a/${process.ppid}/x`, self)).toBe(false);
    expect(isDeadLocalHolder('host-b/999999999/x', self)).toBe(false);
  });
});
