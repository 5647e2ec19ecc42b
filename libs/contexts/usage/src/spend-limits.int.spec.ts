import { jest } from '@jest/globals';
import { EventEmitter } from 'node:events';
import type { PlatformConfig } from '#kernel';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store';
import { AggregateRepository, type CommandContext, type ProjectionRunner } from '#eventsourcing';
import type { ReadStore } from '#read-store';
import { REMOTE_LIMIT_TTL_MS, SpendLimits } from './spend-limits.js';
import { UserSpendLimiter } from './user-spend-limiter.js';
import { userSpendStreamId, type UserSpendLimit } from './user-spend.js';
import { userSpendDecider } from './user-spend.decider.js';
import { spaceSpendStreamId } from './space-spend.js';
import { spaceSpendDecider } from './space-spend.decider.js';

const context: CommandContext = {
  actor: { kind: 'user', userId: 'usr_admin' } as unknown as CommandContext['actor'],
  correlationId: 'corr',
  now: () => new Date(),
};
const LIMIT: UserSpendLimit = { tokens: 100, costUsd: null, overage: 'block' };

/** A runner that runs the spend-limits projection here (live), or not. */
class FakeRunner extends EventEmitter {
  live = true;
  isLive(name: string) {
    return this.live && name === 'spend-limits';
  }
  applied() {
    this.emit('progress', { name: 'spend-limits', generation: 1, position: 1, live: true, applied: true });
  }
}

describe('SpendLimits (the gateway keeps limits in memory)', () => {
  let store: SqliteEventStore;
  let aggregates: AggregateRepository;
  let streamReads: number;
  let docReads: number;
  const docs = new Map<string, Record<string, unknown>>();
  const readStore = {
    reader: (name: string) => ({
      get: async (id: string) => {
        if (name === 'spend_limits') docReads++;
        return name === 'spend_limits' ? (docs.get(id) ?? null) : null;
      },
    }),
  } as unknown as ReadStore;

  beforeEach(() => {
    store = new SqliteEventStore({ path: ':memory:' });
    const readStream = store.readStream.bind(store);
    streamReads = 0;
    docReads = 0;
    docs.clear();
    store.readStream = (...args) => {
      streamReads++;
      return readStream(...args);
    };
    aggregates = new AggregateRepository(store, { commandRetries: 3 } as PlatformConfig);
  });
  afterEach(() => {
    jest.restoreAllMocks();
    return store.close();
  });

  it('reads a user without a limit once, not on every call (the regression of issue 27: one read per call)', async () => {
    const runner = new FakeRunner();
    const limiter = new UserSpendLimiter(
      new SpendLimits(aggregates, readStore, runner as unknown as ProjectionRunner),
      readStore,
    );
    for (let i = 0; i < 100; i++) expect(await limiter.limitOf('usr_none')).toBeNull();
    expect(docReads + streamReads).toBe(1);
  });

  it('where the projection runs here: kept until it applies a change, then read again', async () => {
    const runner = new FakeRunner();
    const limits = new SpendLimits(aggregates, readStore, runner as unknown as ProjectionRunner);
    expect(await limits.of('user', 'usr_1')).toBeNull();
    docs.set('user:usr_1', { id: 'user:usr_1', limit: LIMIT });
    expect(await limits.of('user', 'usr_1')).toBeNull();
    runner.applied();
    expect(await limits.of('user', 'usr_1')).toEqual(LIMIT);
    expect(streamReads).toBe(0);
  });

  it('a change made in this process applies to the next call, and a read racing with it caches nothing stale', async () => {
    const runner = new FakeRunner();
    const limits = new SpendLimits(aggregates, readStore, runner as unknown as ProjectionRunner);
    const racing = limits.of('space', 'spc_1');
    limits.changed('space', 'spc_1', LIMIT);
    expect(await racing).toBeNull();
    expect(await limits.of('space', 'spc_1')).toEqual(LIMIT);
  });

  it('where another process runs the projection: read from the log, a change seen within a second', async () => {
    const runner = new FakeRunner();
    runner.live = false;
    const limits = new SpendLimits(aggregates, readStore, runner as unknown as ProjectionRunner);
    let now = 1_000_000;
    jest.spyOn(Date, 'now').mockImplementation(() => now);
    expect(await limits.of('user', 'usr_1')).toBeNull();
    expect(await limits.of('space', 'spc_1')).toBeNull();
    // Another process changes both limits.
    await aggregates.decide(
      userSpendStreamId('usr_1'),
      userSpendDecider,
      { userId: 'usr_1', limit: LIMIT },
      context,
    );
    await aggregates.decide(
      spaceSpendStreamId('spc_1'),
      spaceSpendDecider,
      { spaceId: 'spc_1', limit: LIMIT, by: 'owner' },
      context,
    );
    now += REMOTE_LIMIT_TTL_MS + 1;
    expect(await limits.of('user', 'usr_1')).toEqual(LIMIT);
    expect(await limits.of('space', 'spc_1')).toEqual(LIMIT);
    expect(docReads).toBe(0);
  });
});
