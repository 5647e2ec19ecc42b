// The Space spend routes' answer (our extension: /cost-control/spaces/{spaceId}); the body is a user limit's.
import { z } from 'zod';
import { SpendAmount as Amount, SpendLimitDto } from '../get-user-spend/get-user-spend.schema.js';

export const SpaceSpendDto = z.object({
  spaceId: z.string(),
  limit: SpendLimitDto,
  windowStart: z.string().describe("Start of the Space's current week (its creation plus whole weeks)"),
  resetsAt: z.string().describe('windowStart plus seven days'),
  used: Amount.describe('In the current week, by every call made for the Space (its Agents, its Knowledge)'),
  overage: Amount.describe('What the week used beyond the limit (0 within it)'),
});
