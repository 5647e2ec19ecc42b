// `?asOf=<ISO time>` of the time-travel reads (Agents, Spaces, Skills, memories, documents): a bad time is a 400
// naming asOf.
import { z } from 'zod';

export const AsOfQuery = z.object({
  asOf: z
    .string()
    .max(64)
    .refine((value) => /^\d{4}-\d{2}-\d{2}/.test(value) && !Number.isNaN(Date.parse(value)), {
      message: 'must be an ISO 8601 time, e.g. 2026-01-31T12:00:00Z',
    })
    .optional()
    .describe('Answer the state folded from the log up to this time (ISO 8601) instead of the live one'),
});

export type AsOf = z.output<typeof AsOfQuery>;
