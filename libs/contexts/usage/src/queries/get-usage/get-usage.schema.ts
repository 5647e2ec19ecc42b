// GET /usage: the query string and the report (with a user's split by model or Agent when asked).
import { z } from 'zod';
import { UsageRangeQuery, UsageRecordDto } from '../../usage-report.js';
import { USAGE_BREAKDOWNS, USAGE_DIMENSIONS, type UsageBreakdown } from '../../usage.read-model.js';

/** Dimensions whose subject has no default: the caller has no "own" Agent or model. */
const SUBJECT_REQUIRED = new Set(['agent', 'model']);

export const UsageQuery = UsageRangeQuery.extend({
  dimension: z.enum(USAGE_DIMENSIONS).default('apiKey').describe('What the subject is'),
  subject: z
    .string()
    .min(1)
    .max(256)
    .optional()
    .describe(
      "The key, Agent, model or user id (default: the caller's own key or user; required for `agent` and `model`)",
    ),
  by: z
    .enum(Object.keys(USAGE_BREAKDOWNS) as [UsageBreakdown, ...UsageBreakdown[]])
    .optional()
    .describe(
      'With `dimension=user`: also split the range by model or by Agent (`parts`). A person asks for their own; ' +
        "another user's (`subject`) is for admins",
    ),
}).superRefine((query, context) => {
  if (query.by !== undefined && query.dimension !== 'user')
    context.addIssue({
      code: 'custom',
      path: ['by'],
      message: 'only with dimension=user',
      params: { code: 'invalid_field' },
    });
  // A missing subject is a malformed request whoever asks, answered before any access check.
  if (query.subject === undefined && SUBJECT_REQUIRED.has(query.dimension))
    context.addIssue({
      code: 'custom',
      path: ['subject'],
      message: `required with dimension=${query.dimension}`,
      params: { code: 'missing_field' },
    });
});

const Figures = z.object({
  calls: z.number(),
  failedCalls: z.number(),
  inputTokens: z.number().describe('All input tokens, cached reads included'),
  cachedInputTokens: z.number(),
  outputTokens: z.number(),
  costUsd: z.number(),
  billableCostUsd: z.number().describe('Cost of the calls not covered by the subscription'),
});

export const UsageReportDto = z.object({
  dimension: z.enum(USAGE_DIMENSIONS),
  subject: z.string(),
  from: z.string(),
  to: z.string(),
  totals: Figures,
  days: z.array(Figures.extend({ day: z.string() })),
  records: z
    .array(UsageRecordDto)
    .describe(
      'The days split by isIncludedUsage (covered first within a day), oldest first; parts with calls only',
    ),
});

/** One model's or Agent's share of a user's usage: its totals, days and included/billable records. */
const UsagePartDto = z.object({
  key: z.string().describe("The model's name (`by=model`) or the Agent's id (`by=agent`)"),
  totals: Figures,
  days: z.array(Figures.extend({ day: z.string() })),
  records: z.array(UsageRecordDto).describe('Its days split by isIncludedUsage, as in the report'),
});

export const UsageAnswerDto = UsageReportDto.extend({
  by: z.enum(Object.keys(USAGE_BREAKDOWNS) as [UsageBreakdown, ...UsageBreakdown[]]).optional(),
  parts: z
    .array(UsagePartDto)
    .optional()
    .describe(
      "With `by`: the user's usage over the range per model or per Agent, most costly first (then most tokens). " +
        "Calls without an Agent (the compatible API) are in no Agent's part",
    ),
});
