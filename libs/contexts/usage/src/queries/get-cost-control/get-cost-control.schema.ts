// GET /cost-control: the query string, and the answer every cost-control route gives.
import { z } from 'zod';

export const CostControlQuery = z.object({
  apiKeyId: z
    .string()
    .min(1)
    .max(128)
    .optional()
    .describe("Another key's id (admins only; default: the caller's key)"),
});

export const CostControlDto = z.object({
  apiKeyId: z.string(),
  usageLimit: z
    .object({
      tokens: z.number().nullable(),
      costUsd: z.number().nullable(),
      window: z.enum(['day', 'week', 'month']),
    })
    .nullable(),
  used: z.object({ tokens: z.number(), costUsd: z.number() }).nullable().describe('In the current window'),
  remaining: z.object({ tokens: z.number().nullable(), costUsd: z.number().nullable() }).nullable(),
  exceeded: z.boolean(),
  resetsAt: z.string().nullable().describe('When the current window ends'),
});
