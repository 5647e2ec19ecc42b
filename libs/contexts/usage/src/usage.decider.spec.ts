import { deciderSpec } from '#testing/decider-spec';
import { addCall, usageDecider, ZERO_USAGE } from './usage.decider.js';
import type { ModelCall, UsageEvent } from './usage.events.js';

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
const recorded = (data: ModelCall): UsageEvent => ({ type: 'ModelCallRecorded', data });

describe('usage of a key and day (decider)', () => {
  it('records each call of a batch, in order, whatever was recorded before', () => {
    const [first, second] = [call('c1'), call('c2')];
    given()
      .when({ calls: [first, second] })
      .then([recorded(first), recorded(second)]);
    given(recorded(call('c0')))
      .when({ calls: [first] })
      .then([recorded(first)]);
  });

  it('records nothing for an empty batch', () => given().when({ calls: [] }).then([]));

  it("folds the day's totals, counting only calls outside the subscription as billable", () => {
    const totals = [recorded(call('c1')), recorded(call('c2', { isIncludedUsage: true, costUsd: 2 }))].reduce(
      usageDecider.evolve,
      usageDecider.initialState(),
    );
    expect(totals).toEqual({
      calls: 2,
      tokens: 30,
      inputTokens: 20,
      cachedInputTokens: 4,
      outputTokens: 10,
      costUsd: 2.5,
      billableCostUsd: 0.5,
    });
    expect(addCall(ZERO_USAGE, call('c3'))).toMatchObject({ calls: 1, tokens: 15 });
  });
});
