// Read model of usage: daily totals per API key, per Agent, per model and per user, one document per (dimension,
// subject, UTC day), built by increments from ModelCallRecorded. Reports sum the days of a range.
import type { EventEnvelope } from '../../libs/kernel/src/index.js';
import type { Projector } from '../../libs/eventsourcing/src/projector.js';
import type { WriteOp } from '../../libs/read-store/src/read-store.port.js';
import { USAGE_EVENT_TYPES, type UsageEvent } from '../../libs/usage/src/usage.events.js';

export const USAGE_DIMENSIONS = ['apiKey', 'agent', 'model', 'user'] as const;
export type UsageDimension = (typeof USAGE_DIMENSIONS)[number];

export interface UsageDayView {
  readonly id: string;
  readonly dimension: UsageDimension;
  readonly subject: string;
  readonly day: string;
  readonly calls: number;
  readonly failedCalls: number;
  readonly inputTokens: number;
  readonly cachedInputTokens: number;
  readonly outputTokens: number;
  readonly costUsd: number;
  /** Cost of calls not covered by the subscription. */
  readonly billableCostUsd: number;
}

export const USAGE_DAILY = 'usage_daily';

export const usageDayId = (dimension: UsageDimension, subject: string, day: string): string =>
  `${dimension}:${subject}:${day}`;

export const usageProjector: Projector = {
  name: 'usage',
  version: 1,
  collections: [
    {
      name: USAGE_DAILY,
      indexes: [{ fields: ['dimension', 'subject', 'day'] }, { fields: ['dimension', 'day'] }],
    },
  ],
  eventTypes: USAGE_EVENT_TYPES,
  project(envelope: EventEnvelope): WriteOp[] {
    const call = (envelope as unknown as UsageEvent).data;
    const day = call.startedAt.slice(0, 10);
    const by = {
      calls: 1,
      failedCalls: call.outcome === 'failed' ? 1 : 0,
      inputTokens: call.inputTokens,
      cachedInputTokens: call.cachedInputTokens,
      outputTokens: call.outputTokens,
      costUsd: call.costUsd,
      billableCostUsd: call.isIncludedUsage ? 0 : call.costUsd,
    };
    const subjects: [UsageDimension, string | null][] = [
      ['apiKey', call.apiKeyId],
      ['agent', call.agentId],
      ['model', call.model],
      ['user', call.userId],
    ];
    return subjects
      .filter((entry): entry is [UsageDimension, string] => entry[1] !== null)
      .map(([dimension, subject]) => ({
        kind: 'increment',
        collection: USAGE_DAILY,
        id: usageDayId(dimension, subject, day),
        by,
        onCreate: { dimension, subject, day },
      }));
  },
};
