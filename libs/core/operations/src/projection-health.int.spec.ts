import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store';
import { SqliteReadStore } from '#read-store/sqlite/sqlite-read-store';
import { processLeaseOwner, ProjectionRunner } from '#eventsourcing';
import type { Projector } from '#eventsourcing';
import { makeEvent, uniqueStream, waitUntil } from '#testing/fixtures';
import { projectionHealth } from './projection-health.js';

const counter: Projector = {
  name: 'counter',
  version: 1,
  collections: [{ name: 'counter_docs' }],
  eventTypes: ['Tick'],
  project: () => [{ kind: 'increment', collection: 'counter_docs', id: 'ticks', by: { count: 1 } }],
};

describe('projectionHealth', () => {
  let events: SqliteEventStore;
  let reads: SqliteReadStore;
  const append = (...types: string[]) =>
    events.appendToStream(
      uniqueStream(),
      types.map((type) => makeEvent(type)),
      'no_stream',
    );

  beforeEach(() => {
    events = new SqliteEventStore({ path: ':memory:', pollIntervalMs: 10 });
    reads = new SqliteReadStore({ path: ':memory:', generationCacheMs: 0 });
  });
  afterEach(async () => {
    await events.close();
    await reads.close();
  });

  it('counts as lag only what a projector held elsewhere still has to apply, not the events it skips', async () => {
    await append('Tick', 'Tick', 'Tick');
    const holder = new ProjectionRunner(events, reads, [counter], {
      owner: processLeaseOwner('worker-host'),
      idleCheckpointMs: 3_600_000,
    });
    holder.start();
    await holder.caughtUp(5000);
    const applied = await events.headPosition();
    await append(...Array.from({ length: 10 }, () => 'Other'));
    const head = await events.headPosition();
    await waitUntil(() => holder.status()[0]!.checkpoint === head);
    // Skipped, so not stored yet.
    expect(await reads.checkpoint({ name: 'counter', generation: 1 })).toBe(applied);

    // This process (the api, the CLI) knows the projector but does not run it.
    const here = new ProjectionRunner(events, reads, [counter], { owner: processLeaseOwner('api-host') });
    const [elsewhere] = await projectionHealth(events, reads, here, ['counter']);
    expect(elsewhere).toMatchObject({ state: 'remote', checkpoint: head, lagEvents: 0, lagSeconds: 0 });
    const [unknown] = await projectionHealth(events, reads, null, ['counter']);
    expect(unknown).toMatchObject({ state: 'remote', checkpoint: applied, lagEvents: 10 });

    await holder.stop();
    await append('Other', 'Other');
    const beforeTick = await events.headPosition();
    await append('Tick', 'Other');
    const [behind] = await projectionHealth(events, reads, here, ['counter']);
    expect(behind).toMatchObject({ checkpoint: beforeTick, lagEvents: 2 });
  });

  it('gives each projector its own lag when they stand at different checkpoints', async () => {
    await append('Tick', 'Tick');
    const holder = new ProjectionRunner(events, reads, [counter], {
      owner: processLeaseOwner('worker-host'),
      idleCheckpointMs: 0,
    });
    holder.start();
    await holder.caughtUp(5000);
    await holder.stop();
    const applied = await events.headPosition();
    await append('Tick', 'Other', 'Tick');
    const [counted, never] = await projectionHealth(events, reads, null, ['counter', 'never-built']);
    expect(counted).toMatchObject({ name: 'counter', checkpoint: applied, lagEvents: 3 });
    expect(never).toMatchObject({ name: 'never-built', checkpoint: 0, lagEvents: applied + 3 });
  });

  it('ages the lag by the oldest event not yet applied, from the headers alone', async () => {
    const minutesAgo = (minutes: number) => {
      const event = makeEvent('Tick', { text: 'sealed:'.repeat(5_000) });
      return {
        ...event,
        metadata: { ...event.metadata, occurredAt: new Date(Date.now() - minutes * 60_000).toISOString() },
      };
    };
    await events.appendToStream(
      uniqueStream(),
      [minutesAgo(3), minutesAgo(2), makeEvent('Other')],
      'no_stream',
    );
    const [lagging] = await projectionHealth(events, reads, null, ['counter']);
    expect(lagging).toMatchObject({ checkpoint: 0, lagEvents: 3 });
    expect(lagging!.lagSeconds).toBeGreaterThanOrEqual(180);
    expect(lagging!.lagSeconds).toBeLessThan(240);
  });
});
