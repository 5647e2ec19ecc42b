// Wire shapes of the API keys API (our extension): validation and OpenAPI from one place.
import { z } from 'zod';

const agents = z
  .union([z.literal('all'), z.array(z.string().min(1).max(100)).max(1000)])
  .describe('"all", or the ids of the Agents this key may use');

/** A usage limit as clients send it (also the body of PUT /cost-control/{apiKeyId}). */
export const UsageLimitBody = z.strictObject({
  tokens: z.number().int().positive().nullable().optional().describe('Input + output tokens per window'),
  costUsd: z.number().positive().nullable().optional().describe('Cost in USD per window'),
  window: z.enum(['day', 'week', 'month']).describe('UTC day, ISO week from Monday, or calendar month'),
});

const usageLimit = UsageLimitBody.nullable().describe('Enforced by the gateway; null for no limit');

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

export const ChangeApiKeyBody = z
  .strictObject({
    name: z.string().trim().min(1).max(120).optional(),
    agents: agents.optional(),
    usageLimit: usageLimit.optional(),
  })
  .refine((body) => Object.keys(body).length > 0, 'send at least one of name, agents, usageLimit');

export const ApiKeyDto = z.object({
  id: z.string(),
  name: z.string(),
  keyPrefix: z.string().describe('The first characters of the key'),
  ownerUserId: z.string(),
  agents: agents,
  isAdmin: z.boolean(),
  usageLimit: z
    .object({ tokens: z.number().nullable(), costUsd: z.number().nullable(), window: z.string() })
    .nullable(),
  revoked: z.boolean(),
  revokedAt: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const IssuedApiKeyDto = ApiKeyDto.extend({
  key: z
    .string()
    .nullable()
    .describe('The secret key, shown once; null when an Idempotency-Key retry replays the creation'),
});

export const UserDto = z.object({
  id: z.string(),
  email: z.string(),
  name: z.string(),
  role: z.enum(['admin', 'member']),
  createdAt: z.string(),
});
