import { deciderSpec } from '#testing/decider-spec';
import { addCall, usageDecider, ZERO_USAGE } from './usage.decider.js';
import type { BatchedModelCall, ModelCall, UsageEvent } from './usage.events.js';

const given = deciderSpec(usageDecider);
const call = (callId: string, overrides: Partial<ModelCall> = {}): ModelCall => ({
  callId,
  apiKeyId: 'key_1',
  userId: 'usr_1',
  agentId: null,
  model: 'gpt-test',
  provider: 'openai',
  surface: 'compat',
  operation: 'chat',
  streamed: false,
  inputTokens: 10,
  cachedInputTokens: 2,
  outputTokens: 5,
  costUsd: 0.5,
  isIncludedUsage: false,
  latencyMs: 12,
  outcome: 'completed',
  estimated: false,
  startedAt: '2026-11-18T10:00:00.000Z',
  ...overrides,
});
/** One call per event, as older logs hold them. */
const recorded = (data: ModelCall): UsageEvent => ({ type: 'ModelCallRecorded', data });
const batched = (callId: string, overrides: Partial<ModelCall> = {}): BatchedModelCall => ({
  ...call(callId, overrides),
  correlationId: `req-${callId}`,
});
const batch = (...calls: BatchedModelCall[]): UsageEvent => ({ type: 'ModelCallsRecorded', data: { calls } });

describe('usage of a key and day (decider)', () => {
  it('records each batch as one event of its calls, in order, whatever was recorded before', () => {
    const [first, second, third] = [batched('c1'), batched('c2'), batched('c3')];
    given()
      .when({ batches: [[first, second], [third]] })
      .then([batch(first, second), batch(third)]);
    given(recorded(call('c0')), batch(batched('c00')))
      .when({ batches: [[first]] })
      .then([batch(first)]);
  });

  it('records nothing for no batch or an empty one', () => {
    given().when({ batches: [] }).then([]);
    given()
      .when({ batches: [[]] })
      .then([]);
  });

  it("folds the day's totals from batches and older single calls alike, counting only calls outside the subscription as billable", () => {
    const totals = [
      recorded(call('c1')),
      batch(batched('c2', { isIncludedUsage: true, costUsd: 2 }), batched('c3')),
    ].reduce(usageDecider.evolve, usageDecider.initialState());
    expect(totals).toEqual({
      calls: 3,
      tokens: 45,
      inputTokens: 30,
      cachedInputTokens: 6,
      outputTokens: 15,
      costUsd: 3,
      billableCostUsd: 1,
    });
    expect(addCall(ZERO_USAGE, call('c3'))).toMatchObject({ calls: 1, tokens: 15 });
  });
});
