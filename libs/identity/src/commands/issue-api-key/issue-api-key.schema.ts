// POST /api-keys: the request body.
import { z } from 'zod';
import { agents, usageLimit } from '../../api-key.schemas.js';

export const IssueApiKeyBody = z.strictObject({
  name: z.string().trim().min(1).max(120),
  owner: z
    .strictObject({ email: z.email().max(254), name: z.string().max(120).optional() })
    .optional()
    .describe("The key's owner; registered as a user when new. Default: the calling key's owner"),
  agents: agents.default('all'),
  isAdmin: z.boolean().default(false),
  usageLimit: usageLimit.default(null),
});
