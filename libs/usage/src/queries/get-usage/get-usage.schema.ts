// GET /usage: the query string and the report.
import { z } from 'zod';
import { UsageRangeQuery } from '../../usage-report.js';
import { USAGE_DIMENSIONS } from '../../usage.read-model.js';

export const UsageQuery = UsageRangeQuery.extend({
  dimension: z.enum(USAGE_DIMENSIONS).default('apiKey').describe('What the subject is'),
  subject: z
    .string()
    .min(1)
    .max(256)
    .optional()
    .describe("The key, Agent, model or user id (default: the caller's own key or user)"),
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
});
