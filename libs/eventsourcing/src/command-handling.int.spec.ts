import { SqliteEventStore } from '#event-store';
import { ConflictError, type DomainEvent } from '#kernel';
import { uniqueStream } from '#testing/fixtures';
import { AggregateStateCache, handleCommand } from './command-handling.js';
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
});
