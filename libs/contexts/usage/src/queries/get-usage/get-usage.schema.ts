// GET /usage: the query string and the report.
import { z } from 'zod';
import { UsageRangeQuery, UsageRecordDto } from '../../usage-report.js';
import { USAGE_DIMENSIONS } from '../../usage.read-model.js';

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
}).superRefine((query, context) => {
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
