import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store';
import { SqliteReadStore } from '#read-store/sqlite/sqlite-read-store';
import type { EventEnvelope } from '#kernel';
import { CountingUpcasters, makeEvent, uniqueStream, waitUntil } from '#testing/fixtures';
import {
  isDeadLocalHolder,
  processLeaseOwner,
  ProjectionRunner,
  type ProgressEvent,
  type ProjectionRunnerOptions,
} from './projection-runner.js';
import { ProjectionWaiter } from './projection-waiter.js';
import { EVERY_EVENT, type Projector } from './projector.js';

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

const ticks = async (store: SqliteEventStore, n: number, type = 'Tick') => {
  const stream = uniqueStream('tick');
  await store.appendToStream(
    stream,
    Array.from({ length: n }, () => makeEvent(type)),
    'no_stream',
  );
};

/** Events no counter reads (as model-call usage is for most projectors). */
const others = (store: SqliteEventStore, n: number) => ticks(store, n, 'Other');

describe('ProjectionRunner', () => {
  let events: SqliteEventStore;
  let reads: SqliteReadStore;
  const runners: ProjectionRunner[] = [];
  const runner = (
    projectors: Projector[],
    owner = processLeaseOwner('host-a'),
    extra: Partial<ProjectionRunnerOptions> = {},
  ) => {
    const created = new ProjectionRunner(events, reads, projectors, {
      owner,
      batchSize: 7,
      leaseTtlMs: 300,
      retireGraceMs: 10,
      ...extra,
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

  it("shows a projector's find its batch's pending writes, without the fields the find omits", async () => {
    type Note = { id: string; tag: string; body: string };
    const notes: Projector = {
      name: 'notes',
      version: 1,
      collections: [{ name: 'notes' }, { name: 'notes_seen' }],
      eventTypes: ['Noted', 'Retagged', 'Listed'],
      async project(event, context) {
        const data = event.data as Partial<Note>;
        if (event.type === 'Noted')
          return [
            { kind: 'upsert', collection: 'notes', doc: { id: data.id!, tag: data.tag, body: data.body } },
          ];
        if (event.type === 'Retagged')
          return [{ kind: 'patch', collection: 'notes', id: data.id!, set: { tag: data.tag } }];
        const page = await context.find('notes', { tag: 'red' }, { omit: ['body'] });
        return [{ kind: 'upsert', collection: 'notes_seen', doc: { id: 'listing', docs: page.data } }];
      },
    };
    // The first batch (seven events) commits note a; the second changes a, b and c and lists before committing.
    await events.appendToStream(
      uniqueStream('notes'),
      [
        makeEvent('Noted', { id: 'a', tag: 'red', body: 'A' }),
        ...Array.from({ length: 6 }, () => makeEvent('Other')),
      ],
      'no_stream',
    );
    await events.appendToStream(
      uniqueStream('notes'),
      [
        makeEvent('Noted', { id: 'b', tag: 'red', body: 'B' }),
        makeEvent('Retagged', { id: 'a', tag: 'blue' }),
        makeEvent('Noted', { id: 'c', tag: 'blue', body: 'C' }),
        makeEvent('Retagged', { id: 'c', tag: 'red' }),
        makeEvent('Listed'),
      ],
      'no_stream',
    );
    expect(await runner([notes]).caughtUp(5000)).toBe(true);
    expect(await reads.reader<{ id: string; docs: unknown[] }>('notes_seen').get('listing')).toEqual({
      id: 'listing',
      docs: [
        { id: 'b', tag: 'red' },
        { id: 'c', tag: 'red' },
      ],
    });
    expect(await reads.reader<Note>('notes').get('c')).toEqual({ id: 'c', tag: 'red', body: 'C' });
  });

  it("commits a catch-up's batches together, a document changed by each of them once; live batches one by one", async () => {
    const writes: { checkpoint: number; ops: number }[] = [];
    const commit = reads.commit.bind(reads);
    reads.commit = (ref, ops, checkpoint) => {
      if (ops.length > 0) writes.push({ checkpoint, ops: ops.length });
      return commit(ref, ops, checkpoint);
    };
    // 60 events over 9 batches of 7, changing the same six labels ten times over.
    for (let round = 0; round < 10; round++)
      await events.appendToStream(
        uniqueStream('labels'),
        Array.from({ length: 6 }, (_, i) => makeEvent('Labelled', { id: `l${i}`, text: `round ${round}` })),
        'no_stream',
      );
    const running = runner([labels(1)]);
    expect(await running.caughtUp(5000)).toBe(true);
    expect(writes).toEqual([{ checkpoint: 60, ops: 6 }]);
    expect(await reads.reader<{ id: string; text: string }>('labels').get('l5')).toEqual({
      id: 'l5',
      text: 'round 9',
    });
    expect(await reads.checkpoint({ name: 'labels', generation: 1 })).toBe(60);

    await events.appendToStream(
      uniqueStream('labels'),
      [makeEvent('Labelled', { id: 'l0', text: 'live' })],
      'no_stream',
    );
    await waitUntil(
      async () => (await reads.reader<{ id: string; text: string }>('labels').get('l0'))?.text === 'live',
    );
    expect(writes.at(-1)).toEqual({ checkpoint: 61, ops: 1 });
  });

  it('shows a projector reading its own state the writes of earlier batches its catch-up has not committed yet', async () => {
    const tally: Projector = {
      name: 'tally',
      version: 1,
      collections: [{ name: 'tally' }],
      eventTypes: ['Tick'],
      async project(_event, context) {
        const seen = await context.get<{ id: string; n: number }>('tally', 'all');
        return [{ kind: 'upsert', collection: 'tally', doc: { id: 'all', n: (seen?.n ?? 0) + 1 } }];
      },
    };
    await ticks(events, 50);
    expect(await runner([tally]).caughtUp(5000)).toBe(true);
    expect(await reads.reader<{ id: string; n: number }>('tally').get('all')).toEqual({ id: 'all', n: 50 });
  });

  it('never reports or stores a position its catch-up has not committed: a failed commit re-reads the batches it carried', async () => {
    // A document per tick and one count of them all.
    const tallied: Projector = {
      name: 'tallied',
      version: 1,
      collections: [{ name: 'tallied' }],
      eventTypes: ['Tick'],
      project: (event) => [
        { kind: 'upsert', collection: 'tallied', doc: { id: `at-${event.position}` } },
        { kind: 'increment', collection: 'tallied', id: 'count', by: { n: 1 } },
      ],
    };
    const committed: number[] = [];
    let failures = 0;
    const commit = reads.commit.bind(reads);
    reads.commit = async (ref, ops, checkpoint) => {
      if (ops.length > 0 && checkpoint === 28 && failures++ === 0) throw new Error('disk full');
      await commit(ref, ops, checkpoint);
      committed.push(checkpoint);
    };
    await ticks(events, 40);
    const running = runner([tallied], processLeaseOwner('host-a'), { catchUpCommitDocuments: 10 });
    const reported: { position: number; committed: number }[] = [];
    running.on('progress', (event) =>
      reported.push({ position: event.position, committed: Math.max(0, ...committed) }),
    );
    const tally = reads.reader<{ id: string; n?: number }>('tallied');
    // The failed commit fails the projector, which retries from its stored checkpoint (after a backoff).
    await waitUntil(async () => (await tally.get('count'))?.n === 40, 5000);
    // The catch-up's last commit is visible before the generation's indexes are prepared and it counts as live.
    await waitUntil(async () => running.status()[0]?.state === 'live', 5000);
    expect(failures).toBe(2);
    // Two batches of seven change 15 documents (≥ 10): commits at 14, then (after the failure at 28 and a retry from
    // 14) at 28, then 35 and the short batch at the head, 40.
    expect(committed).toEqual([14, 28, 40]);
    expect(running.status()[0]).toMatchObject({ state: 'live', failures: 1, lastError: 'disk full' });
    expect(reported.every(({ position, committed: upTo }) => position <= upTo)).toBe(true);
    expect(await tally.count()).toBe(41);
    expect(await reads.checkpoint({ name: 'tallied', generation: 1 })).toBe(40);
  });

  it('runs a projector that reads every event of the log (EVERY_EVENT), whatever its type or stream', async () => {
    const every: Projector = { ...counter('every'), eventTypes: EVERY_EVENT };
    await ticks(events, 4);
    await others(events, 6);
    const running = runner([every]);
    expect(await running.caughtUp(5000)).toBe(true);
    expect(await count('every')).toBe(10);
    await others(events, 2);
    await waitUntil(async () => (await count('every')) === 12);
    expect(running.eventTypesOf(every).has('AnythingAtAll')).toBe(true);
    expect(running.eventTypesOf(counter()).has('Other')).toBe(false);
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
    await waitUntil(() => both.status().find((s) => s.name === 'counter')?.state === 'live');
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

  it('skips batches holding nothing it reads (no commit), yet waiters see their position; stores it on stop', async () => {
    const commits: string[] = [];
    const commit = reads.commit.bind(reads);
    reads.commit = (ref, ops, checkpoint) => {
      commits.push(`${ref.name}@${checkpoint}`);
      return commit(ref, ops, checkpoint);
    };
    const progress: ProgressEvent[] = [];
    await ticks(events, 5);
    // No lazy write while the test runs: only a commit, a generation switch or stop stores the position.
    const live = runner([counter()], processLeaseOwner('host-a'), { idleCheckpointMs: 3_600_000 });
    live.on('progress', (event) => progress.push(event));
    expect(await live.caughtUp(5000)).toBe(true);
    expect(await count()).toBe(5);
    const applied = await events.headPosition();
    commits.length = 0;
    progress.length = 0;

    for (let i = 0; i < 4; i++) await others(events, 10);
    const head = await events.headPosition();
    await waitUntil(() => live.status()[0]!.checkpoint === head);
    expect(commits).toEqual([]);
    expect(progress.length).toBeGreaterThan(0);
    expect(progress.every((event) => !event.applied && event.live)).toBe(true);
    const ref = { name: 'counter', generation: 1 };
    expect(await reads.checkpoint(ref)).toBe(applied);

    // Read-your-writes at once (timeout 0): here from the runner's seen position; in a process that does not hold
    // the projector, from the stored checkpoint and the events after it, none of which it reads.
    expect(await new ProjectionWaiter(reads, live).waitFor(['counter'], head, 0)).toBe(true);
    const elsewhere = new ProjectionRunner(events, reads, [counter()], {
      owner: processLeaseOwner('host-b'),
    });
    expect(await new ProjectionWaiter(reads, elsewhere).waitFor(['counter'], head, 0)).toBe(true);
    // Without knowing what the projector reads, only the stored checkpoint counts.
    expect(await new ProjectionWaiter(reads, null).waitFor(['counter'], head, 0)).toBe(false);

    // A batch it reads commits with the skipped positions before it.
    await others(events, 3);
    await ticks(events, 2);
    const second = await events.headPosition();
    await waitUntil(async () => (await count()) === 7);
    await waitUntil(() => live.status()[0]!.checkpoint === second);
    expect(await reads.checkpoint(ref)).toBe(second);
    expect(progress.filter((event) => event.applied).length).toBeGreaterThan(0);

    await others(events, 6);
    const third = await events.headPosition();
    await waitUntil(() => live.status()[0]!.checkpoint === third);
    expect(await reads.checkpoint(ref)).toBe(second);
    await live.stop();
    expect(await reads.checkpoint(ref)).toBe(third);

    // A restart resumes from the stored checkpoint without gaps or duplicates.
    await others(events, 4);
    await ticks(events, 3);
    const restarted = runner([counter()]);
    expect(await restarted.caughtUp(5000)).toBe(true);
    await waitUntil(async () => (await count()) === 10);
    expect(restarted.status()[0]!.checkpoint).toBe(await events.headPosition());
  });

  it('wakes a read-your-writes wait on progress made while it was reading the stored checkpoint', async () => {
    const live = runner([labels(1, 20)]);
    expect(await live.caughtUp(5000)).toBe(true);
    await events.appendToStream(
      uniqueStream('label'),
      [makeEvent('Labelled', { id: 'l1', text: 'one' })],
      'no_stream',
    );
    const head = await events.headPosition();
    // A read store that answers the checkpoint as it was when read, after a while (a remote one; here until the
    // runner has applied the position): the progress comes while the wait is looking, not while it listens.
    const slow = Object.create(reads) as SqliteReadStore;
    slow.checkpoint = async (ref) => {
      const stored = await reads.checkpoint(ref);
      await waitUntil(() => live.status()[0]!.checkpoint >= head);
      return stored;
    };
    // A poll longer than the test's timeout: only the runner's progress can end this wait.
    expect(await new ProjectionWaiter(slow, live, 600_000).waitFor(['labels'], head, 600_000)).toBe(true);
  });

  it('waits on a projection live here without reading the store: its runner has seen every batch', async () => {
    const live = runner([labels(1, 20)]);
    expect(await live.caughtUp(5000)).toBe(true);
    const counted = Object.create(reads) as SqliteReadStore;
    let storeReads = 0;
    counted.projection = async (name) => {
      storeReads++;
      return reads.projection(name);
    };
    counted.checkpoint = async (ref) => {
      storeReads++;
      return reads.checkpoint(ref);
    };
    const waiter = new ProjectionWaiter(counted, live, 600_000);
    await events.appendToStream(
      uniqueStream('label'),
      [makeEvent('Labelled', { id: 'l2', text: 'two' })],
      'no_stream',
    );
    const head = await events.headPosition();
    // The projector takes 20 ms a batch: the wait starts behind it and ends on its progress.
    expect(live.status()[0]!.checkpoint).toBeLessThan(head);
    expect(await waiter.waitFor(['labels'], head, 600_000)).toBe(true);
    expect(live.status()[0]!.checkpoint).toBeGreaterThanOrEqual(head);
    expect(await reads.reader<{ id: string; text: string }>('labels').get('l2')).toMatchObject({
      text: 'two',
    });
    expect(storeReads).toBe(0);
    // A projection this process does not run is looked up in the store.
    expect(await new ProjectionWaiter(counted, null).waitFor(['labels'], head, 0)).toBe(true);
    expect(storeReads).toBeGreaterThan(0);
  });

  it('sees an append of types it does not read as it commits (the store passes it over), then reads the next', async () => {
    const upcasters = new CountingUpcasters();
    events = new SqliteEventStore({ path: ':memory:', pollIntervalMs: 10, upcasters });
    await ticks(events, 2);
    const live = runner([counter()], processLeaseOwner('host-a'), { idleCheckpointMs: 3_600_000 });
    const progress: ProgressEvent[] = [];
    live.on('progress', (event) => progress.push(event));
    expect(await live.caughtUp(5000)).toBe(true);
    await waitUntil(() => live.status()[0]!.state === 'live');
    progress.length = 0;
    upcasters.parsed = 0;
    await others(events, 3);
    const head = await events.headPosition();
    // Not read at all, and seen before the append resolved.
    expect(upcasters.parsed).toBe(0);
    expect(live.status()[0]!.checkpoint).toBe(head);
    expect(progress).toEqual([
      { name: 'counter', generation: 1, position: head, live: true, applied: false },
    ]);
    expect(await new ProjectionWaiter(reads, live).waitFor(['counter'], head, 0)).toBe(true);
    await ticks(events, 1);
    await waitUntil(async () => (await count()) === 3);
    expect(await reads.checkpoint({ name: 'counter', generation: 1 })).toBe(await events.headPosition());
  });

  it('stores the position of skipped batches lazily, without a batch to apply', async () => {
    await ticks(events, 3);
    const live = runner([counter()], processLeaseOwner('host-a'), { idleCheckpointMs: 20 });
    await live.caughtUp(5000);
    await others(events, 30);
    const head = await events.headPosition();
    await waitUntil(async () => (await reads.checkpoint({ name: 'counter', generation: 1 })) === head);
    expect(await count()).toBe(3);
  });

  it('leaves the stored checkpoint at the head once it has caught up, though the last batches held nothing it reads', async () => {
    await ticks(events, 3);
    await others(events, 40);
    const head = await events.headPosition();
    const live = runner([counter()], processLeaseOwner('host-a'), {
      idleCheckpointMs: 3_600_000,
      batchSize: 5,
    });
    expect(await live.caughtUp(5000)).toBe(true);
    // A process that reads the stored checkpoint (the CLI, a waiter elsewhere, a restart) sees the head, not a lag.
    expect(await reads.checkpoint({ name: 'counter', generation: 1 })).toBe(head);
    expect(await count()).toBe(3);
  });

  it('stores nothing once its lease is lost; the next holder re-reads the skipped events and skips them', async () => {
    const ref = { name: 'counter', generation: 1 };
    await ticks(events, 3);
    const a = runner([counter()], processLeaseOwner('host-a'), { idleCheckpointMs: 3_600_000 });
    await a.caughtUp(5000);
    const stored = await events.headPosition();
    await others(events, 30);
    await waitUntil(async () => a.status()[0]!.checkpoint === (await events.headPosition()));

    // Another host takes the lease over (as after this one stalled past its lease).
    const ownerB = processLeaseOwner('host-b');
    expect(await reads.acquireLease('projection:counter', ownerB, 60_000, a.options.owner)).toBe(true);
    await waitUntil(() => a.status()[0]!.state === 'standby');
    expect(await reads.checkpoint(ref)).toBe(stored);

    await ticks(events, 2);
    const b = runner([counter()], ownerB);
    expect(await b.caughtUp(5000)).toBe(true);
    await waitUntil(async () => (await count()) === 5);
    expect(b.status()[0]!.checkpoint).toBe(await events.headPosition());
    expect(await reads.checkpoint(ref)).toBe(await events.headPosition());
  });

  it('stores the rebuilt generation at the position it has seen when it switches to it', async () => {
    await ticks(events, 10);
    const live = runner([counter()], processLeaseOwner('host-a'), { idleCheckpointMs: 3_600_000 });
    await live.caughtUp(5000);
    await others(events, 20);
    const head = await events.headPosition();
    await reads.saveProjection({ name: 'counter', rebuildRequested: true });
    await waitUntil(async () => (await reads.projection('counter'))?.liveGeneration === 2, 5000);
    expect(await reads.checkpoint({ name: 'counter', generation: 2 })).toBe(head);
    expect(await count()).toBe(10);
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
