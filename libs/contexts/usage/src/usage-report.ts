// Usage reports from the daily read model: one subject (an API key, Agent, model or user) over a range of UTC days,
// day by day and in total, and a user's split by model or Agent. Shared by GET /usage, GET /llm/{agentId}/usage and
// GET /cost-control.
import { z } from 'zod';
import { ValidationError } from '#kernel';
import type { Page, ReadStore } from '#read-store';
import {
  USAGE_BREAKDOWNS,
  USAGE_DAILY,
  USAGE_FIGURES,
  type UsageBreakdown,
  type UsageDayView,
  type UsageDimension,
} from './usage.read-model.js';
import { utcDay } from './usage.events.js';

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const DAY_MS = 86_400_000;
export const DEFAULT_RANGE_DAYS = 30;
export const MAX_RANGE_DAYS = 366;

const isRealDay = (value: string): boolean =>
  DAY.test(value) &&
  !Number.isNaN(Date.parse(`${value}T00:00:00Z`)) &&
  utcDay(new Date(`${value}T00:00:00Z`)) === value;

export const UsageRangeQuery = z.object({
  from: z
    .string()
    .refine(isRealDay, 'a UTC day, YYYY-MM-DD')
    .optional()
    .describe('First UTC day (default: 29 days before `to`)'),
  to: z
    .string()
    .refine(isRealDay, 'a UTC day, YYYY-MM-DD')
    .optional()
    .describe('Last UTC day, included (default: today)'),
});
export type UsageRangeQuery = z.output<typeof UsageRangeQuery>;

/** A day's calls covered by the subscription, or billable: the spec's `isIncludedUsage`, by that name. */
export const UsageRecordDto = z.object({
  day: z.string(),
  isIncludedUsage: z
    .boolean()
    .describe('true: calls covered by the subscription (models configured `includedUsage`); false: billable'),
  calls: z.number(),
  failedCalls: z.number(),
  inputTokens: z.number().describe('All input tokens, cached reads included'),
  cachedInputTokens: z.number(),
  outputTokens: z.number(),
  costUsd: z.number(),
});

/** The range asked for, defaulted to the last 30 days and bounded to 366. */
export function usageRange(query: UsageRangeQuery, now = new Date()): { from: string; to: string } {
  const to = query.to ?? utcDay(now);
  const from =
    query.from ?? utcDay(new Date(Date.parse(`${to}T00:00:00Z`) - (DEFAULT_RANGE_DAYS - 1) * DAY_MS));
  const days = (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS + 1;
  if (days < 1) throw new ValidationError('invalid_range', '`from` must not be after `to`', 'from');
  if (days > MAX_RANGE_DAYS)
    throw new ValidationError('invalid_range', `a range covers at most ${MAX_RANGE_DAYS} days`, 'from');
  return { from, to };
}

/** The figures of a report line: a usage day without its identity and its split by inclusion. */
export type UsageFigures = Pick<UsageDayView, (typeof USAGE_FIGURES)[number]>;

/**
 * One usage record: a day's calls that were covered by the subscription (`isIncludedUsage: true`, the name of the
 * spec's "LLM invocation" field) or billable (`false`).
 */
export interface UsageRecord {
  readonly day: string;
  readonly isIncludedUsage: boolean;
  readonly calls: number;
  readonly failedCalls: number;
  readonly inputTokens: number;
  readonly cachedInputTokens: number;
  readonly outputTokens: number;
  readonly costUsd: number;
}

export interface UsageReport {
  readonly dimension: UsageDimension;
  readonly subject: string;
  readonly from: string;
  readonly to: string;
  readonly totals: UsageFigures;
  /** Days with at least one call, oldest first. */
  readonly days: readonly (UsageFigures & { readonly day: string })[];
  /** The same days split by isIncludedUsage (covered first), only the parts with calls. */
  readonly records: readonly UsageRecord[];
}

const round = (value: number): number => Math.round(value * 1e9) / 1e9;

/** A day's covered and billable parts, each when it has calls. */
function recordsOf(doc: UsageDayView): UsageRecord[] {
  const included = {
    calls: doc.includedCalls ?? 0,
    failedCalls: doc.includedFailedCalls ?? 0,
    inputTokens: doc.includedInputTokens ?? 0,
    cachedInputTokens: doc.includedCachedInputTokens ?? 0,
    outputTokens: doc.includedOutputTokens ?? 0,
    costUsd: round((doc.costUsd ?? 0) - (doc.billableCostUsd ?? 0)),
  };
  const billable = {
    calls: doc.calls - included.calls,
    failedCalls: doc.failedCalls - included.failedCalls,
    inputTokens: doc.inputTokens - included.inputTokens,
    cachedInputTokens: doc.cachedInputTokens - included.cachedInputTokens,
    outputTokens: doc.outputTokens - included.outputTokens,
    costUsd: round(doc.billableCostUsd ?? 0),
  };
  return [
    ...(included.calls > 0 ? [{ day: doc.day, isIncludedUsage: true, ...included }] : []),
    ...(billable.calls > 0 ? [{ day: doc.day, isIncludedUsage: false, ...billable }] : []),
  ];
}

/** The totals, days and records of a subject's day documents (oldest first). */
function figuresOf(docs: readonly UsageDayView[]): Pick<UsageReport, 'totals' | 'days' | 'records'> {
  const totals = Object.fromEntries(USAGE_FIGURES.map((field) => [field, 0])) as Record<
    (typeof USAGE_FIGURES)[number],
    number
  >;
  const days = docs.map((doc) => {
    const figures = Object.fromEntries(
      USAGE_FIGURES.map((field) => [field, round(doc[field] ?? 0)]),
    ) as Record<(typeof USAGE_FIGURES)[number], number>;
    for (const field of USAGE_FIGURES) totals[field] += figures[field];
    return { day: doc.day, ...figures };
  });
  for (const field of USAGE_FIGURES) totals[field] = round(totals[field]);
  return { totals, days, records: docs.flatMap(recordsOf) };
}

export async function usageReport(
  readStore: ReadStore,
  dimension: UsageDimension,
  subject: string,
  range: { from: string; to: string },
): Promise<UsageReport> {
  const page = await readStore
    .reader<UsageDayView>(USAGE_DAILY)
    .find(
      { dimension, subject, day: { $gte: range.from, $lte: range.to } },
      { sort: { field: 'day' }, limit: MAX_RANGE_DAYS + 1 },
    );
  return { dimension, subject, ...range, ...figuresOf(page.data) };
}

/** One model's or Agent's part of a user's usage over the range. */
export interface UsagePart extends Pick<UsageReport, 'totals' | 'days' | 'records'> {
  /** The model's name or the Agent's id. */
  readonly key: string;
}

/**
 * A user's usage over the range split by model or by Agent, most costly first (then most tokens, then by key). A
 * split has a document per part and day, so the range is read page by page.
 */
export async function usageBreakdown(
  readStore: ReadStore,
  by: UsageBreakdown,
  userId: string,
  range: { from: string; to: string },
): Promise<UsagePart[]> {
  const reader = readStore.reader<UsageDayView>(USAGE_DAILY);
  const byPart = new Map<string, UsageDayView[]>();
  let cursor: string | null = null;
  do {
    const page: Page<UsageDayView> = await reader.find(
      { dimension: USAGE_BREAKDOWNS[by], subject: userId, day: { $gte: range.from, $lte: range.to } },
      { sort: { field: 'day' }, limit: 500, cursor },
    );
    for (const doc of page.data) {
      const key = doc.part ?? '';
      byPart.set(key, [...(byPart.get(key) ?? []), doc]);
    }
    cursor = page.nextCursor;
  } while (cursor);
  const tokens = (part: UsagePart) => part.totals.inputTokens + part.totals.outputTokens;
  return [...byPart]
    .map(([key, docs]) => ({ key, ...figuresOf(docs) }))
    .sort(
      (a, b) => b.totals.costUsd - a.totals.costUsd || tokens(b) - tokens(a) || a.key.localeCompare(b.key),
    );
}
