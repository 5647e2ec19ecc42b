// The per key and day usage stream as an aggregate: its state is the day's totals, which is what limits read. Recording
// has no invariant to protect (a call happened), so `decide` only turns batches of calls into events, one per batch;
// the expected revision still orders concurrent writers. The state folds both the batches and older logs' single calls.
import type { Decider } from '#eventsourcing';
import { callsOf, type BatchedModelCall, type ModelCall, type UsageEvent } from './usage.events.js';

export interface UsageTotals {
  readonly calls: number;
  /** Input plus output tokens, what token limits count. */
  readonly tokens: number;
  readonly inputTokens: number;
  readonly cachedInputTokens: number;
  readonly outputTokens: number;
  readonly costUsd: number;
  /** Cost of the calls not covered by the subscription, what cost limits count. */
  readonly billableCostUsd: number;
}

export const ZERO_USAGE: UsageTotals = {
  calls: 0,
  tokens: 0,
  inputTokens: 0,
  cachedInputTokens: 0,
  outputTokens: 0,
  costUsd: 0,
  billableCostUsd: 0,
};

export function addCall(totals: UsageTotals, call: ModelCall): UsageTotals {
  return {
    calls: totals.calls + 1,
    tokens: totals.tokens + call.inputTokens + call.outputTokens,
    inputTokens: totals.inputTokens + call.inputTokens,
    cachedInputTokens: totals.cachedInputTokens + call.cachedInputTokens,
    outputTokens: totals.outputTokens + call.outputTokens,
    costUsd: totals.costUsd + call.costUsd,
    billableCostUsd: totals.billableCostUsd + (call.isIncludedUsage ? 0 : call.costUsd),
  };
}

export interface RecordCalls {
  /** Each batch becomes one event (a retried batch is the same batch: its event id derives from its first call). */
  readonly batches: readonly (readonly BatchedModelCall[])[];
}

export const usageDecider: Decider<UsageTotals, RecordCalls, UsageEvent> = {
  initialState: () => ZERO_USAGE,
  evolve: (state, event) => callsOf(event).reduce(addCall, state),
  decide: (command) =>
    command.batches
      .filter((calls) => calls.length > 0)
      .map((calls) => ({ type: 'ModelCallsRecorded', data: { calls } })),
};
