// An API key as the routes answer it: never the secret, except once, when it is issued.
import { z } from 'zod';
import { agents } from '../../api-key.schemas.js';
import type { ApiKeyView } from '../../api-keys.read-model.js';

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

export const toApiKeyDto = (view: ApiKeyView) => ({
  id: view.id,
  name: view.name,
  keyPrefix: view.keyPrefix,
  ownerUserId: view.ownerUserId,
  agents: view.agentAccess.kind === 'all' ? ('all' as const) : [...view.agentAccess.agentIds],
  isAdmin: view.isAdmin,
  usageLimit: view.usageLimit,
  revoked: view.revoked,
  revokedAt: view.revokedAt,
  createdAt: view.createdAt,
  updatedAt: view.updatedAt,
});
