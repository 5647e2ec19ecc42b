// POST /me/api-keys: the request body (Developer Settings).
import { z } from 'zod';
import { agents, UsageLimitBody } from '../../api-key.schemas.js';

export const CreateOwnApiKeyBody = z.strictObject({
  name: z.string().trim().min(1).max(120),
  agents: agents.describe('"all" (only for a caller that reaches every Agent), or Agents the caller may use'),
  usageLimit: UsageLimitBody.describe('Every self-made key carries a usage limit'),
});
