// The user spend routes' body and answer (our extension: /cost-control/users).
import { z } from 'zod';
import { OVERAGE_POLICIES } from '../../user-spend.js';

export const UserSpendLimitBody = z.strictObject({
  tokens: z.number().int().positive().nullable().optional().describe('Input + output tokens per week'),
  costUsd: z.number().positive().nullable().optional().describe('Billable cost in USD per week'),
  overage: z
    .enum(OVERAGE_POLICIES)
    .describe(
      '`block`: 429 `usage_limit_exceeded` at the limit; `allow`: calls go through, the excess is overage',
    ),
});

/** Tokens and cost (shared with the Space spend answer). */
export const SpendAmount = z.object({ tokens: z.number(), costUsd: z.number() });

/** A weekly limit as answered (shared with the Space spend answer); null: none. */
export const SpendLimitDto = z
  .object({
    tokens: z.number().nullable(),
    costUsd: z.number().nullable(),
    overage: z.enum(OVERAGE_POLICIES),
  })
  .nullable();

export const UserSpendDto = z.object({
  userId: z.string(),
  limit: SpendLimitDto,
  windowStart: z
    .string()
    .describe("Start of the user's current week (their usageWindowStart plus whole weeks)"),
  resetsAt: z.string().describe('windowStart plus seven days'),
  used: SpendAmount.describe('In the current week'),
  overage: SpendAmount.describe('What the week used beyond the limit (0 within it)'),
});

export const UserSpendListDto = z.object({ data: z.array(UserSpendDto) });
