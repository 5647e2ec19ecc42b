// The usage read model: daily totals per API key, per Agent, per model, per user, per user of an Agent, per Space, and
// a user's split by model and by Agent, one document per (dimension, subject, part, UTC day). Reports sum the days of
// a range. Built by projections/usage.
import { defineReadModel } from '#eventsourcing';

/** The dimensions GET /usage takes. */
export const USAGE_DIMENSIONS = ['apiKey', 'agent', 'model', 'user'] as const;
/**
 * Kept for GET /llm/{agentId}/usage, whose callers see their own usage of the Agent (subject: agentUserSubject), and
 * for a Space's weekly spend limit (`space`: calls made for an Agent of the Space or its Knowledge).
 */
export type UsageDimension =
  | (typeof USAGE_DIMENSIONS)[number]
  | 'agentUser'
  | 'space'
  | (typeof USAGE_BREAKDOWNS)[keyof typeof USAGE_BREAKDOWNS];

/**
 * What a user's usage splits by (GET /usage?dimension=user&by=…), and the dimension keeping each split: its documents'
 * subject is the user, their `part` the model or the Agent.
 */
export const USAGE_BREAKDOWNS = { model: 'userModel', agent: 'userAgent' } as const;
export type UsageBreakdown = keyof typeof USAGE_BREAKDOWNS;

export const agentUserSubject = (agentId: string, userId: string): string => `${agentId}/${userId}`;

export interface UsageDayView {
  readonly id: string;
  readonly dimension: UsageDimension;
  readonly subject: string;
  /** The model or the Agent of a user's split (dimensions userModel, userAgent); absent elsewhere. */
  readonly part?: string;
  readonly day: string;
  readonly calls: number;
  readonly failedCalls: number;
  readonly inputTokens: number;
  readonly cachedInputTokens: number;
  readonly outputTokens: number;
  readonly costUsd: number;
  /** Cost of calls not covered by the subscription. */
  readonly billableCostUsd: number;
  /**
   * The part of the figures above from calls covered by the subscription (`isIncludedUsage`); the billable part is
   * the difference. Absent on documents of projector version 1 (read as 0).
   */
  readonly includedCalls?: number;
  readonly includedFailedCalls?: number;
  readonly includedInputTokens?: number;
  readonly includedCachedInputTokens?: number;
  readonly includedOutputTokens?: number;
}

/** The figures a usage day sums over its calls. */
export const USAGE_FIGURES = [
  'calls',
  'failedCalls',
  'inputTokens',
  'cachedInputTokens',
  'outputTokens',
  'costUsd',
  'billableCostUsd',
] as const;

/** The same figures of the calls covered by the subscription (`isIncludedUsage`). */
export const INCLUDED_USAGE_FIGURES = [
  'includedCalls',
  'includedFailedCalls',
  'includedInputTokens',
  'includedCachedInputTokens',
  'includedOutputTokens',
] as const;

export const USAGE_DAILY = 'usage_daily';

export const USAGE_READ_MODEL = defineReadModel<UsageDayView>({
  name: USAGE_DAILY,
  projection: 'usage',
  indexes: [{ fields: ['dimension', 'subject', 'day'] }, { fields: ['dimension', 'day'] }],
});

/** A document's id; a split's `part` follows its subject (a user id holds no `/`, so ids stay distinct). */
export const usageDayId = (dimension: UsageDimension, subject: string, day: string, part?: string): string =>
  part === undefined ? `${dimension}:${subject}:${day}` : `${dimension}:${subject}/${part}:${day}`;
