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
import { usageStreamId, type ModelCall } from './usage.events.js';

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

describe('UsageRecorder', () => {
  let store: EventStore;
  const setup = (wrap: (store: EventStore) => EventStore = (s) => s) => {
    store = new SqliteEventStore({ path: ':memory:' });
    const commands = new AggregateRepository(wrap(store), { commandRetries: 3 } as PlatformConfig);
    const bus = directCommandBus([RecordModelCalls, new RecordModelCallsHandler(commands)]);
    return new UsageRecorder(bus, pino({ level: 'silent' }));
  };
  afterEach(() => store.close());

  it('appends queued calls in one batch per key and day, and counts them as pending until then', async () => {
    const recorder = setup();
    recorder.record(call('c1'), 'corr-1');
    recorder.record(call('c2'), 'corr-2');
    recorder.record(call('c3', { startedAt: '2026-11-21T00:00:01.000Z' }), 'corr-3');
    expect(recorder.pendingFor('key_1')).toMatchObject({ calls: 3, tokens: 45 });
    await recorder.flush();
    expect(recorder.pendingFor('key_1').calls).toBe(0);
    const day1 = await store.readStream(usageStreamId('key_1', '2026-11-20'));
    expect(
      day1.map((event) => [event.type, (event.data as ModelCall).callId, event.metadata.correlationId]),
    ).toEqual([
      ['ModelCallRecorded', 'c1', 'corr-1'],
      ['ModelCallRecorded', 'c2', 'corr-2'],
    ]);
    expect(day1[0]!.metadata.actor).toEqual({ kind: 'apiKey', id: 'key_1' });
    expect(await store.readStream(usageStreamId('key_1', '2026-11-21'))).toHaveLength(1);
  });

  it('gives each call an event id led by its start, so the ids sort as the calls started', async () => {
    const recorder = setup();
    const starts = ['2026-11-20T10:00:00.900Z', '2026-11-20T10:00:00.100Z', '2026-11-20T10:00:00.500Z'];
    starts.forEach((startedAt, i) => recorder.record(call(`c${i}`, { startedAt }), `corr-${i}`));
    await recorder.flush();
    const events = await store.readStream(usageStreamId('key_1', '2026-11-20'));
    const idOf = (startedAt: string) =>
      events.find((event) => (event.data as ModelCall).startedAt === startedAt)!.id;
    expect(starts.map(idOf).map((id) => parseInt(id.slice(0, 8) + id.slice(9, 13), 16))).toEqual(
      starts.map((startedAt) => Date.parse(startedAt)),
    );
    expect([...starts].sort().map(idOf)).toEqual(starts.map(idOf).sort());
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
    await recorder.flush();
    await recorder.flush();
    expect(await store.readStream(usageStreamId('key_1', '2026-11-20'))).toHaveLength(1);
  });

  it('flushes everything on shutdown, without waiting for the timer', async () => {
    const recorder = setup();
    for (let index = 0; index < 10; index++) recorder.record(call(`c${index}`), 'corr');
    await recorder.onApplicationShutdown();
    expect(await store.readStream(usageStreamId('key_1', '2026-11-20'))).toHaveLength(10);
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
