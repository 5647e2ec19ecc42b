import { type EventStore, type ReadStreamOptions } from '#event-store';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store';
import { ConflictError, type DomainEvent } from '#kernel';
import { uniqueStream } from '#testing/fixtures';
import {
  AggregateStateCache,
  handleCommand,
  handleCreation,
  recordFacts,
  type CommandContext,
} from './command-handling.js';
import type { Decider } from './decider.js';

type Event = DomainEvent<'Added', { readonly n: number }>;
/** A counter that refuses to pass 3: decisions depend on every event folded so far. */
const counter: Decider<number, { add: number }, Event> = {
  initialState: () => 0,
  evolve: (total, event) => total + event.data.n,
  decide: (command, total) => {
    if (total + command.add > 3) throw new ConflictError('limit', `total ${total} + ${command.add} passes 3`);
    return [{ type: 'Added', data: { n: command.add } }];
  },
};
const context = { actor: { kind: 'system' as const, id: 't' }, correlationId: 'c', now: () => new Date() };

describe('handleCommand', () => {
  it('folds, decides and appends with the expected revision, deciding again after a concurrent write', async () => {
    const store = new SqliteEventStore({ path: ':memory:' });
    const stream = uniqueStream();
    const results = await Promise.allSettled(
      [1, 1, 1, 1].map(() => handleCommand(store, stream, counter, { add: 1 }, context)),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(3);
    expect(results.find((r) => r.status === 'rejected')).toMatchObject({ reason: { code: 'limit' } });
    expect((await store.readStream(stream)).map((e) => e.revision)).toEqual([0, 1, 2]);
  });

  it('with a state cache, still sees what another process appended since', async () => {
    const store = new SqliteEventStore({ path: ':memory:' });
    const stream = uniqueStream();
    const mine = new AggregateStateCache();
    const theirs = new AggregateStateCache();
    await handleCommand(store, stream, counter, { add: 1 }, context, 5, mine);
    await handleCommand(store, stream, counter, { add: 2 }, context, 5, theirs);
    expect(mine.get(stream, counter.evolve)).toEqual({ revision: 0, state: 1 });
    await expect(handleCommand(store, stream, counter, { add: 1 }, context, 5, mine)).rejects.toMatchObject({
      code: 'limit',
    });
    expect(mine.get(stream, counter.evolve)).toEqual({ revision: 1, state: 3 });
  });

  it('evicts the least recently used state beyond its capacity', () => {
    const cache = new AggregateStateCache(2);
    cache.set('a', counter.evolve, 0, 1);
    cache.set('b', counter.evolve, 0, 1);
    cache.get('a', counter.evolve);
    cache.set('c', counter.evolve, 0, 1);
    expect(cache.get('b', counter.evolve)).toBeNull();
    expect(cache.get('a', counter.evolve)).not.toBeNull();
    expect(cache.get('a', () => 0)).toBeNull();
  });

  describe('a retried idempotent request', () => {
    type Logged = DomainEvent<'Logged', { readonly line: number }>;
    /** Appends `lines` events per command, whatever came before. */
    const log: Decider<null, { lines: number }, Logged> = {
      initialState: () => null,
      evolve: () => null,
      decide: (command) =>
        Array.from({ length: command.lines }, (_, line) => ({ type: 'Logged', data: { line } })),
    };
    const keyed = (seed: string): CommandContext => ({ ...context, request: { seed, commands: new Map() } });

    it('answers the original result from the request’s own events, reading from them on, not the whole stream', async () => {
      const sqlite = new SqliteEventStore({ path: ':memory:' });
      const reads: (ReadStreamOptions | string)[] = [];
      const store: EventStore = Object.assign(Object.create(sqlite) as EventStore, {
        readStream: (streamId: string, options?: ReadStreamOptions) => {
          reads.push(options ?? 'whole stream');
          return sqlite.readStream(streamId, options);
        },
        readStreamFromEvent: (streamId: string, eventId: string, maxCount: number) => {
          reads.push(`from event, at most ${maxCount}`);
          return sqlite.readStreamFromEvent(streamId, eventId, maxCount);
        },
      });
      const stream = uniqueStream();
      await handleCommand(sqlite, stream, log, { lines: 5 }, context);
      // More events than one page of the lookup, then many more from other commands.
      const first = await handleCommand(sqlite, stream, log, { lines: 70 }, keyed('req_1'));
      await handleCommand(sqlite, stream, log, { lines: 3 }, keyed('req_2'));
      for (let i = 0; i < 20; i++) await handleCommand(sqlite, stream, log, { lines: 10 }, context);

      const retried = await handleCommand(store, stream, log, { lines: 70 }, keyed('req_1'));
      expect(retried).toEqual(first);
      expect(retried.revision).toBe(74);
      expect(retried.events).toHaveLength(70);
      expect(reads[0]).toMatch(/^from event/);
      expect(reads.every((read) => read !== 'whole stream')).toBe(true);
      expect((await sqlite.readStream(stream)).length).toBe(5 + 70 + 3 + 200);

      // A request seen for the first time finds nothing and is applied once.
      reads.length = 0;
      const fresh = await handleCommand(store, stream, log, { lines: 2 }, keyed('req_3'));
      expect(fresh.events).toHaveLength(2);
      expect(reads[0]).toMatch(/^from event/);
      expect(await handleCommand(store, stream, log, { lines: 2 }, keyed('req_3'))).toEqual(fresh);
      expect(
        await handleCommand(store, uniqueStream('other'), log, { lines: 1 }, keyed('req_1')),
      ).toMatchObject({
        revision: 0,
      });
    });
  });
});

describe('recordFacts (a record of facts: no invariant, no load)', () => {
  /** Records whatever it is given: nothing to protect. */
  const facts: Decider<null, { readonly ns: readonly number[] }, Event> = {
    initialState: () => null,
    evolve: () => null,
    decide: (command) => command.ns.map((n) => ({ type: 'Added', data: { n } })),
  };

  it('appends at the stream revision without reading the stream, each event with its own id, request and time', async () => {
    const store = new SqliteEventStore({ path: ':memory:' });
    const stream = uniqueStream();
    let reads = 0;
    const counted: EventStore = Object.assign(Object.create(store) as EventStore, {
      readStream: (id: string, options?: ReadStreamOptions) => {
        reads++;
        return store.readStream(id, options);
      },
    });
    const origin = (index: number) => ({
      id: `0190c0de-0000-7000-8000-00000000000${index}`,
      correlationId: `request-${index}`,
      occurredAt: `2026-11-18T10:00:0${index}.000Z`,
    });
    await recordFacts(counted, stream, facts, { ns: [1] }, context);
    // Concurrent batches: each is appended at the revision it finds, again after a conflict.
    await Promise.all(
      [2, 3, 4].map((n) =>
        recordFacts(counted, stream, facts, { ns: [n] }, { ...context, perEvent: () => origin(n) }),
      ),
    );
    const stored = await store.readStream(stream);
    expect(reads).toBe(0);
    expect(stored.map((event) => event.revision)).toEqual([0, 1, 2, 3]);
    expect(
      stored.map((event) => event.data).toSorted((a, b) => (a as { n: number }).n - (b as { n: number }).n),
    ).toEqual([1, 2, 3, 4].map((n) => ({ n })));
    const four = stored.find((event) => (event.data as { n: number }).n === 4)!;
    expect(four.id).toBe(origin(4).id);
    expect(four.metadata).toMatchObject({ correlationId: 'request-4', occurredAt: origin(4).occurredAt });
    expect(stored[0]!.metadata.correlationId).toBe('c');
  });
});

describe('handleCreation (a stream named with a fresh id)', () => {
  it('appends expecting no stream without reading it; a stream that exists is loaded and decided on', async () => {
    const sqlite = new SqliteEventStore({ path: ':memory:' });
    let reads = 0;
    const store: EventStore = Object.assign(Object.create(sqlite) as EventStore, {
      readStream: (id: string, options?: ReadStreamOptions) => {
        reads++;
        return sqlite.readStream(id, options);
      },
    });
    const cache = new AggregateStateCache();
    const fresh = uniqueStream();
    expect(await handleCreation(store, fresh, counter, { add: 2 }, context, 5, cache)).toMatchObject({
      revision: 0,
    });
    expect(reads).toBe(0);
    expect(cache.get(fresh, counter.evolve)).toEqual({ revision: 0, state: 2 });

    // The id was used already: refused as a new stream, then decided on what the stream holds.
    const used = uniqueStream();
    await handleCommand(sqlite, used, counter, { add: 3 }, context);
    await expect(handleCreation(store, used, counter, { add: 1 }, context)).rejects.toMatchObject({
      code: 'limit',
    });
    expect(reads).toBeGreaterThan(0);
    expect((await sqlite.readStream(used)).map((event) => event.data)).toEqual([{ n: 3 }]);
  });
});
