// Builds the usage read model (libs/contexts/usage/src/usage.read-model.ts) by increments from the recorded calls: a
// batch's (ModelCallsRecorded) merged into one increment per document, older logs' single calls (ModelCallRecorded)
// one by one.
import { defineProjector } from '#eventsourcing';
import type { WriteOp } from '#read-store';
import type { ModelCall, UsageEvent } from '#usage';
import {
  agentUserSubject,
  USAGE_BREAKDOWNS,
  USAGE_DAILY,
  USAGE_READ_MODEL,
  usageDayId,
  type UsageDimension,
} from '#usage';

export const usageProjector = defineProjector<UsageEvent>({
  name: USAGE_READ_MODEL.projection,
  // 2: per user of an Agent (agentUser), so that a user sees their own usage of an Agent; and the
  // subscription-covered part of each day (included*), so reports split calls by isIncludedUsage.
  // 3: a user's split by model and by Agent (userModel, userAgent), rebuilt from the log.
  version: 3,
  collections: [USAGE_READ_MODEL],
  on: {
    ModelCallRecorded: ({ data: call }): WriteOp[] => callIncrements(call),
    ModelCallsRecorded: ({ data: { calls } }): WriteOp[] => {
      const merged = new Map<string, Increment>();
      for (const call of calls)
        for (const op of callIncrements(call)) {
          const into = merged.get(op.id);
          if (!into) merged.set(op.id, { ...op, by: { ...op.by } });
          else for (const [field, by] of Object.entries(op.by)) into.by[field] = (into.by[field] ?? 0) + by;
        }
      return [...merged.values()];
    },
  },
});

type Increment = Extract<WriteOp, { kind: 'increment' }> & { by: Record<string, number> };

/** What one call adds: its day's totals of each subject it counts toward (its key, Agent, model, user, Space …). */
function callIncrements(call: ModelCall): Increment[] {
  const day = call.startedAt.slice(0, 10);
  const failed = call.outcome === 'failed' ? 1 : 0;
  const included = call.isIncludedUsage ? 1 : 0;
  const by = {
    calls: 1,
    failedCalls: failed,
    inputTokens: call.inputTokens,
    cachedInputTokens: call.cachedInputTokens,
    outputTokens: call.outputTokens,
    costUsd: call.costUsd,
    billableCostUsd: call.isIncludedUsage ? 0 : call.costUsd,
    includedCalls: included,
    includedFailedCalls: included * failed,
    includedInputTokens: included * call.inputTokens,
    includedCachedInputTokens: included * call.cachedInputTokens,
    includedOutputTokens: included * call.outputTokens,
  };
  const subjects: [UsageDimension, string | null, string?][] = [
    ['apiKey', call.apiKeyId],
    ['agent', call.agentId],
    ['model', call.model],
    ['user', call.userId],
    ['agentUser', call.agentId && call.userId ? agentUserSubject(call.agentId, call.userId) : null],
    // A Space's spend (its weekly limit). Events before spaceId existed have none: no rebuild needed.
    ['space', call.spaceId ?? null],
    [USAGE_BREAKDOWNS.model, call.userId, call.model],
    [USAGE_BREAKDOWNS.agent, call.agentId ? call.userId : null, call.agentId ?? undefined],
  ];
  return subjects
    .filter((entry): entry is [UsageDimension, string, string?] => entry[1] !== null)
    .map(([dimension, subject, part]): Increment => ({
      kind: 'increment',
      collection: USAGE_DAILY,
      id: usageDayId(dimension, subject, day, part),
      by,
      onCreate: { dimension, subject, day, ...(part === undefined ? {} : { part }) },
    }));
}
