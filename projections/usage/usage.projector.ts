// Builds the usage read model (libs/contexts/usage/src/usage.read-model.ts) by increments from the recorded calls: a
// batch's (ModelCallsRecorded) merged into one increment per document, older logs' single calls (ModelCallRecorded)
// one by one.
import { defineProjector } from '#eventsourcing';
import type { WriteOp } from '#read-store';
import type { ModelCall, UsageEvent } from '#usage';
import {
  agentUserSubject,
  INCLUDED_USAGE_FIGURES,
  USAGE_BREAKDOWNS,
  USAGE_DAILY,
  USAGE_FIGURES,
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
    ModelCallRecorded: ({ data: call }): WriteOp[] =>
      subjectsOf(call).map((subject) =>
        increment(subject, call.startedAt.slice(0, 10), addCall(noTotals(), call)),
      ),
    // Calls of the same day, key, model, user, Agent and Space count toward the same documents: a batch (hundreds of
    // calls, of a few such groups) is summed per group first, then written as one increment per document.
    ModelCallsRecorded: ({ data: { calls } }): WriteOp[] => {
      const groups = new Map<string, { first: ModelCall; totals: Totals }>();
      for (const call of calls) {
        const key = groupOf(call);
        let group = groups.get(key);
        if (!group) groups.set(key, (group = { first: call, totals: noTotals() }));
        addCall(group.totals, call);
      }
      const merged = new Map<string, Increment>();
      for (const { first, totals } of groups.values()) {
        const day = first.startedAt.slice(0, 10);
        for (const subject of subjectsOf(first)) {
          const id = usageDayId(subject[0], subject[1], day, subject[2]);
          const into = merged.get(id);
          if (into) for (const field of TOTALS) into.by[field] += totals[field];
          else merged.set(id, increment(subject, day, totals));
        }
      }
      return [...merged.values()];
    },
  },
});

/** What calls add to each of their days' documents. */
const TOTALS = [...USAGE_FIGURES, ...INCLUDED_USAGE_FIGURES] as const;
type Totals = Record<(typeof TOTALS)[number], number>;

type Increment = Extract<WriteOp, { kind: 'increment' }> & { readonly by: Totals };

/** Absent (null or undefined) in a group's key: no id is this character. */
const NONE = '\u0001';

/** The documents a call counts toward, as one string: its day, key, model, user, Agent and Space. */
const groupOf = (call: ModelCall): string =>
  [
    call.startedAt.slice(0, 10),
    call.apiKeyId,
    call.model,
    call.userId,
    call.agentId ?? NONE,
    call.spaceId ?? NONE,
  ].join('\u0000');

const noTotals = (): Totals => Object.fromEntries(TOTALS.map((field) => [field, 0])) as Totals;

/** Adds a call's figures to `totals`, in place (a batch's calls make no object each), and returns it. */
function addCall(totals: Totals, call: ModelCall): Totals {
  const failed = call.outcome === 'failed' ? 1 : 0;
  totals.calls += 1;
  totals.failedCalls += failed;
  totals.inputTokens += call.inputTokens;
  totals.cachedInputTokens += call.cachedInputTokens;
  totals.outputTokens += call.outputTokens;
  totals.costUsd += call.costUsd;
  if (!call.isIncludedUsage) {
    totals.billableCostUsd += call.costUsd;
    return totals;
  }
  totals.includedCalls += 1;
  totals.includedFailedCalls += failed;
  totals.includedInputTokens += call.inputTokens;
  totals.includedCachedInputTokens += call.cachedInputTokens;
  totals.includedOutputTokens += call.outputTokens;
  return totals;
}

/** A subject a call counts toward: its dimension, the subject and, for a user's split, the part (model or Agent). */
type Subject = readonly [UsageDimension, string, string?];

/** Every subject a call counts toward on its day: its key, Agent, model, user, Space and the user's splits. */
function subjectsOf(call: ModelCall): Subject[] {
  const subjects: Subject[] = [
    ['apiKey', call.apiKeyId],
    ['model', call.model],
    ['user', call.userId],
    [USAGE_BREAKDOWNS.model, call.userId, call.model],
  ];
  if (call.agentId !== null) subjects.push(['agent', call.agentId]);
  if (call.agentId && call.userId) subjects.push(['agentUser', agentUserSubject(call.agentId, call.userId)]);
  if (call.agentId) subjects.push([USAGE_BREAKDOWNS.agent, call.userId, call.agentId]);
  // A Space's spend (its weekly limit). Events before spaceId existed have none: no rebuild needed.
  if (call.spaceId !== undefined && call.spaceId !== null) subjects.push(['space', call.spaceId]);
  return subjects;
}

function increment([dimension, subject, part]: Subject, day: string, by: Totals): Increment {
  return {
    kind: 'increment',
    collection: USAGE_DAILY,
    id: usageDayId(dimension, subject, day, part),
    by: { ...by },
    onCreate: { dimension, subject, day, ...(part === undefined ? {} : { part }) },
  };
}
