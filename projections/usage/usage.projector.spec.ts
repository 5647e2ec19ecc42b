import { projectionHarness } from '#testing/projection-harness';
import type { ModelCall, ModelCallsRecorded } from '#usage';
import { agentUserSubject, USAGE_DAILY, usageDayId } from '#usage';
import { usageProjector } from './usage.projector.js';

const call = (overrides: Partial<ModelCall> = {}): { type: string; data: ModelCall } => ({
  type: 'ModelCallRecorded',
  data: {
    callId: 'call_1',
    apiKeyId: 'key_1',
    userId: 'usr_1',
    agentId: null,
    model: 'gpt-x',
    provider: 'openai',
    surface: 'compat',
    operation: 'chat',
    streamed: false,
    inputTokens: 100,
    cachedInputTokens: 40,
    outputTokens: 10,
    costUsd: 0.5,
    isIncludedUsage: false,
    latencyMs: 12,
    outcome: 'completed',
    estimated: false,
    startedAt: '2026-11-20T10:00:00.000Z',
    ...overrides,
  },
});

/** Calls recorded together, as the recorder appends them (one event per batch). */
const batch = (...calls: { data: ModelCall }[]): { type: string; data: ModelCallsRecorded } => ({
  type: 'ModelCallsRecorded',
  data: { calls: calls.map(({ data }, index) => ({ ...data, correlationId: `req-${index}` })) },
});

describe('usage projection', () => {
  it('adds each call to its day per key, model and user, and per Agent when there is one', async () => {
    const h = await projectionHarness(usageProjector);
    await h.apply(
      h.envelope(call()),
      h.envelope(call({ callId: 'call_2', agentId: 'agt_1', isIncludedUsage: true, outcome: 'failed' })),
    );
    expect(await h.get(USAGE_DAILY, usageDayId('apiKey', 'key_1', '2026-11-20'))).toMatchObject({
      dimension: 'apiKey',
      subject: 'key_1',
      day: '2026-11-20',
      calls: 2,
      failedCalls: 1,
      inputTokens: 200,
      cachedInputTokens: 80,
      outputTokens: 20,
      costUsd: 1,
      billableCostUsd: 0.5,
      // The subscription-covered part: the second call only (failed).
      includedCalls: 1,
      includedFailedCalls: 1,
      includedInputTokens: 100,
      includedCachedInputTokens: 40,
      includedOutputTokens: 10,
    });
    expect(await h.get(USAGE_DAILY, usageDayId('model', 'gpt-x', '2026-11-20'))).toMatchObject({ calls: 2 });
    expect(await h.get(USAGE_DAILY, usageDayId('user', 'usr_1', '2026-11-20'))).toMatchObject({ calls: 2 });
    expect(await h.get(USAGE_DAILY, usageDayId('agent', 'agt_1', '2026-11-20'))).toMatchObject({
      calls: 1,
      billableCostUsd: 0,
    });
  });

  it("adds each call with an Agent to that Agent's user too, so that a user sees their own usage of it", async () => {
    const h = await projectionHarness(usageProjector);
    await h.apply(
      h.envelope(call({ agentId: 'agt_1' })),
      h.envelope(call({ callId: 'call_2', agentId: 'agt_1', userId: 'usr_2' })),
      h.envelope(call({ callId: 'call_3', agentId: null })),
    );
    const day = (userId: string) => usageDayId('agentUser', agentUserSubject('agt_1', userId), '2026-11-20');
    expect(await h.get(USAGE_DAILY, day('usr_1'))).toMatchObject({ calls: 1, dimension: 'agentUser' });
    expect(await h.get(USAGE_DAILY, day('usr_2'))).toMatchObject({ calls: 1 });
    expect(await h.get(USAGE_DAILY, usageDayId('agent', 'agt_1', '2026-11-20'))).toMatchObject({ calls: 2 });
  });

  it("adds a call that served a Space to the Space's day (its weekly spend limit)", async () => {
    const h = await projectionHarness(usageProjector);
    await h.apply(
      h.envelope(call({ agentId: 'agt_1', spaceId: 'spc_1' })),
      h.envelope(call({ callId: 'call_2', agentId: null, spaceId: 'spc_1' })),
      h.envelope(call({ callId: 'call_3' })),
    );
    expect(await h.get(USAGE_DAILY, usageDayId('space', 'spc_1', '2026-11-20'))).toMatchObject({
      dimension: 'space',
      calls: 2,
      inputTokens: 200,
      outputTokens: 20,
    });
  });

  it("splits a user's calls by model, and those with an Agent by Agent", async () => {
    const h = await projectionHarness(usageProjector);
    await h.apply(
      h.envelope(call({ agentId: 'agt_1' })),
      h.envelope(call({ callId: 'call_2', agentId: 'agt_1', model: 'gpt-y', isIncludedUsage: true })),
      h.envelope(call({ callId: 'call_3', agentId: null })),
      h.envelope(call({ callId: 'call_4', agentId: 'agt_2', userId: 'usr_2' })),
    );
    const day = '2026-11-20';
    expect(await h.get(USAGE_DAILY, usageDayId('userModel', 'usr_1', day, 'gpt-x'))).toMatchObject({
      dimension: 'userModel',
      subject: 'usr_1',
      part: 'gpt-x',
      day,
      calls: 2,
      inputTokens: 200,
    });
    expect(await h.get(USAGE_DAILY, usageDayId('userModel', 'usr_1', day, 'gpt-y'))).toMatchObject({
      calls: 1,
      includedCalls: 1,
      billableCostUsd: 0,
    });
    // The compatible API's call (no Agent) is in no Agent's part.
    expect(await h.get(USAGE_DAILY, usageDayId('userAgent', 'usr_1', day, 'agt_1'))).toMatchObject({
      part: 'agt_1',
      calls: 2,
      includedCalls: 1,
    });
    expect(await h.get(USAGE_DAILY, usageDayId('userAgent', 'usr_2', day, 'agt_2'))).toMatchObject({
      calls: 1,
    });
    expect(await h.get(USAGE_DAILY, usageDayId('userAgent', 'usr_1', day, 'agt_2'))).toBeNull();
  });

  it('the same event twice is counted once', async () => {
    const h = await projectionHarness(usageProjector);
    const event = h.envelope(call());
    await h.apply(event);
    await h.apply(event);
    expect(await h.get(USAGE_DAILY, usageDayId('apiKey', 'key_1', '2026-11-20'))).toMatchObject({ calls: 1 });
  });

  it('counts a batch of calls like the same calls one by one (older logs), in one increment per document', async () => {
    const calls = [
      call(),
      call({ callId: 'call_2', agentId: 'agt_1', isIncludedUsage: true, outcome: 'failed' }),
      call({ callId: 'call_3', agentId: 'agt_1', userId: 'usr_2', model: 'gpt-y', spaceId: 'spc_1' }),
    ];
    const single = await projectionHarness(usageProjector);
    await single.apply(...calls.map((event) => single.envelope(event)));
    const batched = await projectionHarness(usageProjector);
    const event = batched.envelope(batch(...calls));
    await batched.apply(event);
    const ops = (await usageProjector.project(event, {} as never)) as readonly { id: string }[];
    expect(new Set(ops.map((op) => op.id)).size).toBe(ops.length);
    const day = '2026-11-20';
    const documents = [
      usageDayId('apiKey', 'key_1', day),
      usageDayId('model', 'gpt-x', day),
      usageDayId('model', 'gpt-y', day),
      usageDayId('user', 'usr_1', day),
      usageDayId('agent', 'agt_1', day),
      usageDayId('agentUser', agentUserSubject('agt_1', 'usr_2'), day),
      usageDayId('space', 'spc_1', day),
      usageDayId('userModel', 'usr_1', day, 'gpt-x'),
      usageDayId('userAgent', 'usr_2', day, 'agt_1'),
    ];
    for (const id of documents)
      expect(await batched.get(USAGE_DAILY, id)).toEqual(await single.get(USAGE_DAILY, id));
    expect(await batched.get(USAGE_DAILY, usageDayId('apiKey', 'key_1', day))).toMatchObject({
      calls: 3,
      failedCalls: 1,
      includedCalls: 1,
      inputTokens: 300,
    });
  });

  it('the same batch twice is counted once, beside older single calls', async () => {
    const h = await projectionHarness(usageProjector);
    const event = h.envelope(batch(call({ callId: 'call_2' }), call({ callId: 'call_3' })));
    await h.apply(h.envelope(call()), event);
    await h.apply(event);
    expect(await h.get(USAGE_DAILY, usageDayId('apiKey', 'key_1', '2026-11-20'))).toMatchObject({ calls: 3 });
  });
});
