import pino from 'pino';
import type { PlatformConfig } from '#kernel';
import type { EventStore } from '#event-store';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store';
import { AggregateRepository } from '#eventsourcing';
import { UsageLimiter } from './usage-limiter.js';
import { directCommandBus } from '#testing/direct-command-bus';
import {
  RecordModelCalls,
  RecordModelCallsHandler,
} from './commands/record-model-calls/record-model-calls.command.js';
import { UsageRecorder } from './usage-recorder.js';
import { usageStreamId, type ModelCall, type ModelCallsRecorded } from './usage.events.js';

const call = (callId: string, overrides: Partial<ModelCall> = {}): ModelCall => ({
  callId,
  apiKeyId: 'key_1',
  userId: 'usr_1',
  agentId: null,
  model: 'm',
  provider: 'offline',
  surface: 'compat',
  operation: 'chat',
  streamed: false,
  inputTokens: 10,
  cachedInputTokens: 0,
  outputTokens: 5,
  costUsd: 0.001,
  isIncludedUsage: false,
  latencyMs: 1,
  outcome: 'completed',
  estimated: false,
  startedAt: '2026-11-20T10:00:00.000Z',
  ...overrides,
});

/** The calls of a usage event, as `[callId, correlationId]`. */
const callsIn = (event: { data: unknown }) =>
  (event.data as ModelCallsRecorded).calls.map((recorded) => [recorded.callId, recorded.correlationId]);

describe('UsageRecorder', () => {
  let store: EventStore;
  const setup = (wrap: (store: EventStore) => EventStore = (s) => s) => {
    store = new SqliteEventStore({ path: ':memory:' });
    const commands = new AggregateRepository(wrap(store), { commandRetries: 3 } as PlatformConfig);
    const bus = directCommandBus([RecordModelCalls, new RecordModelCallsHandler(commands)]);
    return new UsageRecorder(bus, pino({ level: 'silent' }));
  };
  afterEach(() => store.close());

  it('appends queued calls as one event per key and day, and counts them as pending until then', async () => {
    const recorder = setup();
    recorder.record(call('c1'), 'corr-1');
    recorder.record(call('c2'), 'corr-2');
    recorder.record(call('c3', { startedAt: '2026-11-21T00:00:01.000Z' }), 'corr-3');
    expect(recorder.pendingFor('key_1')).toMatchObject({ calls: 3, tokens: 45 });
    expect(recorder.queued).toBe(3);
    await recorder.flush();
    expect(recorder.pendingFor('key_1').calls).toBe(0);
    expect(recorder.queued).toBe(0);
    const day1 = await store.readStream(usageStreamId('key_1', '2026-11-20'));
    expect(day1.map((event) => [event.type, callsIn(event)])).toEqual([
      [
        'ModelCallsRecorded',
        [
          ['c1', 'corr-1'],
          ['c2', 'corr-2'],
        ],
      ],
    ]);
    // The batch's metadata is its first call's: the key as actor, the request's correlation, the call's start.
    expect(day1[0]!.metadata).toMatchObject({
      actor: { kind: 'apiKey', id: 'key_1' },
      correlationId: 'corr-1',
      occurredAt: '2026-11-20T10:00:00.000Z',
    });
    const day2 = await store.readStream(usageStreamId('key_1', '2026-11-21'));
    expect(day2.map(callsIn)).toEqual([[['c3', 'corr-3']]]);
  });

  it('cuts a long queue of one stream into events of at most 250 calls, in order', async () => {
    const recorder = setup();
    for (let index = 0; index < 600; index++) recorder.record(call(`c${index}`), `corr-${index}`);
    await recorder.flush();
    const events = await store.readStream(usageStreamId('key_1', '2026-11-20'));
    expect(events.map((event) => callsIn(event).length)).toEqual([250, 250, 100]);
    expect(events.flatMap(callsIn).map(([callId]) => callId)).toEqual(
      Array.from({ length: 600 }, (_, index) => `c${index}`),
    );
  });

  it("gives each batch an event id led by its first call's start, so the ids sort as the batches started", async () => {
    const recorder = setup();
    const starts = ['2026-11-20T10:00:00.100Z', '2026-11-20T10:00:00.500Z', '2026-11-20T10:00:00.900Z'];
    for (const [i, startedAt] of starts.entries()) {
      recorder.record(call(`c${i}`, { startedAt }), `corr-${i}`);
      await recorder.flush();
    }
    const events = await store.readStream(usageStreamId('key_1', '2026-11-20'));
    expect(events.map(({ id }) => parseInt(id.slice(0, 8) + id.slice(9, 13), 16))).toEqual(
      starts.map((startedAt) => Date.parse(startedAt)),
    );
    expect(events.map(({ id }) => id)).toEqual(events.map(({ id }) => id).sort());
  });

  it('keeps a batch whose append failed and appends it on the next flush, once', async () => {
    let failures = 1;
    const recorder = setup((inner) =>
      Object.assign(Object.create(inner) as EventStore, {
        appendToStream: (...args: Parameters<EventStore['appendToStream']>) =>
          failures-- > 0 ? Promise.reject(new Error('disk full')) : inner.appendToStream(...args),
      }),
    );
    recorder.record(call('c1'), 'corr');
    await recorder.flush();
    expect(await store.readStream(usageStreamId('key_1', '2026-11-20'))).toHaveLength(0);
    expect(recorder.pendingFor('key_1').calls).toBe(1);
    expect(recorder.queued).toBe(1);
    await recorder.flush();
    await recorder.flush();
    const events = await store.readStream(usageStreamId('key_1', '2026-11-20'));
    expect(events.map(callsIn)).toEqual([[['c1', 'corr']]]);
    expect(recorder.queued).toBe(0);
  });

  it('retries a batch whose append landed but reported a failure as it was, so no call is recorded twice', async () => {
    let failures = 1;
    const recorder = setup((inner) =>
      Object.assign(Object.create(inner) as EventStore, {
        // The first append is stored, then fails (a lost reply): the recorder cannot tell it landed.
        appendToStream: async (...args: Parameters<EventStore['appendToStream']>) => {
          const appended = await inner.appendToStream(...args);
          if (failures-- > 0) throw new Error('connection reset');
          return appended;
        },
      }),
    );
    recorder.record(call('c1'), 'corr-1');
    recorder.record(call('c2'), 'corr-2');
    await recorder.flush();
    expect(recorder.pendingFor('key_1').calls).toBe(2);
    // Newer calls of the same stream are queued meanwhile: the retry must not take them into the failed batch.
    recorder.record(call('c3'), 'corr-3');
    await recorder.flush();
    const events = await store.readStream(usageStreamId('key_1', '2026-11-20'));
    expect(events.map(callsIn)).toEqual([
      [
        ['c1', 'corr-1'],
        ['c2', 'corr-2'],
      ],
      [['c3', 'corr-3']],
    ]);
    expect(recorder.pendingFor('key_1').calls).toBe(0);
  });

  it('flushes everything on shutdown, without waiting for the timer', async () => {
    const recorder = setup();
    for (let index = 0; index < 10; index++) recorder.record(call(`c${index}`), 'corr');
    await recorder.onApplicationShutdown();
    const events = await store.readStream(usageStreamId('key_1', '2026-11-20'));
    expect(events.flatMap(callsIn)).toHaveLength(10);
  });

  it('feeds the limiter: a window folds the log plus what is still queued', async () => {
    const recorder = setup();
    const limiter = new UsageLimiter(
      new AggregateRepository(store, { commandRetries: 3 } as PlatformConfig),
      recorder,
    );
    const now = new Date('2026-11-20T12:00:00.000Z');
    recorder.record(call('c1'), 'corr');
    await recorder.flush();
    recorder.record(call('c2'), 'corr');
    const key = {
      id: 'key_1',
      usageLimit: { tokens: 31, costUsd: null, window: 'day' as const },
    } as Parameters<UsageLimiter['used']>[0];
    expect(await limiter.used(key, now)).toEqual({ tokens: 30, costUsd: 0.002 });
    // 10 tokens reserved of which 1 is certain (the input): 30 used + 1 fits within 31.
    const one = { tokens: 1, costUsd: 0 };
    const reservation = await limiter.reserve(key, { tokens: 10, costUsd: 0, certain: one }, now);
    const refused: unknown = await limiter
      .reserve(key, { ...one, certain: one }, now)
      .catch((error) => error);
    expect(refused).toMatchObject({
      code: 'usage_limit_exceeded',
      // The window resets at midnight UTC, 12 hours on: the SDKs are told when, and not to retry before.
      headers: { 'retry-after': '43200', 'x-should-retry': 'false' },
    });
    expect((refused as Error).message).toContain('daily usage limit');
    reservation.settle({ tokens: 0, costUsd: 0 });
    await expect(limiter.reserve(key, { ...one, certain: one }, now)).resolves.toBeDefined();
  });
});
