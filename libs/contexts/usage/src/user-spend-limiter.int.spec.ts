import type { PlatformConfig } from '#kernel';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store';
import { AggregateRepository, type CommandContext } from '#eventsourcing';
import type { ReadStore } from '#read-store';
import { UsageLimitExceededError } from './usage-limiter.js';
import { UserSpendLimiter } from './user-spend-limiter.js';
import { SpendLimits } from './spend-limits.js';
import {
  SetUserSpendLimitHandler,
  SetUserSpendLimit,
} from './commands/set-user-spend-limit/set-user-spend-limit.command.js';
import { spaceSpendStreamId } from './space-spend.js';
import { spaceSpendDecider } from './space-spend.decider.js';
import { userSpendStreamId, userWindow, type UserSpendLimit } from './user-spend.js';

const context: CommandContext = {
  actor: { kind: 'user', userId: 'usr_admin' } as unknown as CommandContext['actor'],
  correlationId: 'corr',
  now: () => new Date(),
};
const REGISTERED = '2026-11-18T15:30:00.000Z';
const SPACE_CREATED = '2026-11-16T08:00:00.000Z';

describe('UserSpendLimiter', () => {
  let store: SqliteEventStore;
  let aggregates: AggregateRepository;
  let limiter: UserSpendLimiter;
  // The users and usage read models as the projections leave them (one user; 300 tokens used on the window's day).
  const docs: Record<string, Record<string, unknown>> = {
    users: { usr_1: { id: 'usr_1', usageWindowStart: REGISTERED, createdAt: REGISTERED } },
    spaces: { spc_1: { id: 'spc_1', createdAt: SPACE_CREATED } },
    usage_daily: {},
  };
  const readStore = {
    reader: (name: string) => ({ get: async (id: string) => docs[name]?.[id] ?? null }),
  } as unknown as ReadStore;
  let handler: SetUserSpendLimitHandler;
  let limits: SpendLimits;
  // As PUT /cost-control/users/usr_1 does: through the command's handler (which puts the new limit in memory).
  const setLimit = (limit: UserSpendLimit | null) =>
    handler.execute(
      new SetUserSpendLimit('usr_1', limit, context, { kind: 'session', userId: 'usr_admin', isAdmin: true }),
    );

  beforeEach(() => {
    store = new SqliteEventStore({ path: ':memory:' });
    aggregates = new AggregateRepository(store, { commandRetries: 3 } as PlatformConfig);
    limits = new SpendLimits(aggregates, readStore);
    limiter = new UserSpendLimiter(limits, readStore);
    handler = new SetUserSpendLimitHandler(aggregates, readStore, limits);
  });
  afterEach(() => store.close());

  it("counts each user's week from their window start: resetsAt is the start plus seven days", async () => {
    const now = new Date('2026-12-03T09:00:00.000Z');
    const { start, resetsAt } = userWindow(REGISTERED, now);
    expect(start.toISOString()).toBe('2026-12-02T15:30:00.000Z');
    expect(resetsAt.getTime() - start.getTime()).toBe(7 * 86_400_000);
    await setLimit({ tokens: 1000, costUsd: null, overage: 'block' });
    expect(await limiter.status('usr_1', now)).toMatchObject({
      windowStart: '2026-12-02T15:30:00.000Z',
      resetsAt: '2026-12-09T15:30:00.000Z',
    });
  });

  it('block: admits while spent + reserved + estimate ≤ limit, refuses beyond with 429 and Retry-After', async () => {
    await setLimit({ tokens: 100, costUsd: null, overage: 'block' });
    const now = new Date('2026-11-20T00:00:00.000Z');
    (await limiter.reserve('usr_1', { tokens: 60, costUsd: 0 }, now)).settle({ tokens: 60, costUsd: 0 });
    // Exactly at the limit is admitted (≤, not <).
    (await limiter.reserve('usr_1', { tokens: 40, costUsd: 0 }, now)).settle({ tokens: 40, costUsd: 0 });
    const refused = await limiter.reserve('usr_1', { tokens: 1, costUsd: 0 }, now).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(UsageLimitExceededError);
    const error = refused as UsageLimitExceededError;
    expect(error.code).toBe('usage_limit_exceeded');
    // The window reset is 2026-11-25T15:30Z: 5 days 15.5 hours away.
    expect(error.headers?.['retry-after']).toBe(String(5 * 86_400 + 15.5 * 3600));
    expect(error.message).toContain('2026-11-25T15:30:00.000Z');
  });

  it('a limit changed mid-window applies from that moment, to what the week already used', async () => {
    await setLimit({ tokens: 100, costUsd: null, overage: 'block' });
    const now = new Date('2026-11-20T00:00:00.000Z');
    (await limiter.reserve('usr_1', { tokens: 50, costUsd: 0 }, now)).settle({ tokens: 50, costUsd: 0 });
    await setLimit({ tokens: 40, costUsd: null, overage: 'block' });
    await expect(limiter.reserve('usr_1', { tokens: 1, costUsd: 0 }, now)).rejects.toThrow(
      UsageLimitExceededError,
    );
    const events = await store.readStream(userSpendStreamId('usr_1'));
    expect(events.map((event) => event.type)).toEqual(['UserSpendLimitChanged', 'UserSpendLimitChanged']);
  });

  it('allow: lets calls through past the limit and reports the excess as overage', async () => {
    await setLimit({ tokens: 100, costUsd: 0.01, overage: 'allow' });
    const now = new Date('2026-11-20T00:00:00.000Z');
    for (let i = 0; i < 3; i++)
      (await limiter.reserve('usr_1', { tokens: 50, costUsd: 0.004 }, now)).settle({
        tokens: 50,
        costUsd: 0.004,
      });
    expect(await limiter.status('usr_1', now)).toMatchObject({
      used: { tokens: 150, costUsd: 0.012 },
      overage: { tokens: 50, costUsd: 0.002 },
    });
  });

  it('counts the usage read model of the week on first load', async () => {
    docs['usage_daily']!['user:usr_1:2026-11-19'] = {
      inputTokens: 70,
      outputTokens: 20,
      billableCostUsd: 0.5,
    };
    await setLimit({ tokens: 100, costUsd: null, overage: 'block' });
    const now = new Date('2026-11-19T18:00:00.000Z');
    expect((await limiter.status('usr_1', now)).used).toEqual({ tokens: 90, costUsd: 0.5 });
    await expect(limiter.reserve('usr_1', { tokens: 11, costUsd: 0 }, now)).rejects.toThrow(
      UsageLimitExceededError,
    );
    delete docs['usage_daily']!['user:usr_1:2026-11-19'];
  });

  it('200 racing calls overshoot the limit by no more than one call’s estimate', async () => {
    const limit = 1000;
    const estimate = 30;
    await setLimit({ tokens: limit, costUsd: null, overage: 'block' });
    const now = new Date('2026-11-20T00:00:00.000Z');
    // Every call really uses its estimate give or take a little (a model's answer is never exactly its allowance).
    const calls = Array.from({ length: 200 }, async (_, i) => {
      const reservation = await limiter.reserve('usr_1', { tokens: estimate, costUsd: 0 }, now);
      await new Promise((resolve) => setImmediate(resolve));
      reservation.settle({ tokens: estimate - (i % 7), costUsd: 0 });
      return true;
    });
    const outcomes = await Promise.allSettled(calls);
    const admitted = outcomes.filter((outcome) => outcome.status === 'fulfilled').length;
    const used = (await limiter.status('usr_1', now)).used.tokens;
    const overshoot = Math.max(0, used - limit);
    console.log(
      `200 racing calls: ${admitted} admitted, ${used} tokens used of ${limit}, overshoot ${overshoot}`,
    );
    expect(admitted).toBeGreaterThan(0);
    expect(admitted).toBeLessThan(200);
    expect(overshoot).toBeLessThanOrEqual(estimate);
  });

  describe("a Space's limit", () => {
    const space = { scope: 'space', id: 'spc_1' } as const;
    const setSpaceLimit = async (limit: UserSpendLimit | null) => {
      await aggregates.decide(
        spaceSpendStreamId('spc_1'),
        spaceSpendDecider,
        { spaceId: 'spc_1', limit, by: 'owner' },
        context,
      );
      limits.changed('space', 'spc_1', limit);
    };

    it("counts the Space's week from its creation and refuses at spend == limit, apart from any user's", async () => {
      await setSpaceLimit({ tokens: 100, costUsd: null, overage: 'block' });
      const now = new Date('2026-11-20T00:00:00.000Z');
      expect(await limiter.statusOf(space, now)).toMatchObject({
        windowStart: SPACE_CREATED,
        resetsAt: '2026-11-23T08:00:00.000Z',
      });
      (await limiter.reserveFor(space, { tokens: 100, costUsd: 0 }, now)).settle({ tokens: 100, costUsd: 0 });
      // At spend == limit a call that adds a token is refused (≤, not <: LiteLLM #33321).
      await expect(limiter.reserveFor(space, { tokens: 1, costUsd: 0 }, now)).rejects.toThrow(
        /the Space spc_1's weekly usage limit/,
      );
      // The user's week is another's: nothing of the Space's counts toward it.
      expect((await limiter.status('usr_1', now)).used.tokens).toBe(0);
    });

    it('counts the usage read model of the week per Space, and a removed limit admits again', async () => {
      docs['usage_daily']!['space:spc_1:2026-11-17'] = {
        inputTokens: 60,
        outputTokens: 40,
        billableCostUsd: 0,
      };
      await setSpaceLimit({ tokens: 100, costUsd: null, overage: 'block' });
      const now = new Date('2026-11-18T00:00:00.000Z');
      await expect(limiter.reserveFor(space, { tokens: 1, costUsd: 0 }, now)).rejects.toThrow(
        UsageLimitExceededError,
      );
      await setSpaceLimit(null);
      expect(await limiter.spaceLimitOf('spc_1')).toBeNull();
      await expect(limiter.reserveFor(space, { tokens: 1, costUsd: 0 }, now)).resolves.toBeDefined();
      delete docs['usage_daily']!['space:spc_1:2026-11-17'];
    });
  });
});
