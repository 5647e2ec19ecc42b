// PATCH /api-keys/{apiKeyId}: the request body.
import { z } from 'zod';
import { agents, usageLimit } from '../../api-key.schemas.js';

export const ChangeApiKeyBody = z
  .strictObject({
    name: z.string().trim().min(1).max(120).optional(),
    agents: agents.optional(),
    usageLimit: usageLimit.optional(),
  })
  .refine((body) => Object.keys(body).length > 0, 'send at least one of name, agents, usageLimit');
