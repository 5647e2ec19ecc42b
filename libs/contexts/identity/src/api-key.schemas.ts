// The API-key fields the identity and usage routes share: Agent grants and usage limits as clients send them.
import { z } from 'zod';
import { AgentAccess, UsageLimit } from '#access';

export const agents = z
  .union([z.literal('all'), z.array(z.string().min(1).max(100)).max(1000)])
  .describe('"all", or the ids of the Agents this key may use');

/** A usage limit as clients send it (also the body of PUT /cost-control/{apiKeyId}). */
export const UsageLimitBody = z.strictObject({
  tokens: z.number().int().positive().nullable().optional().describe('Input + output tokens per window'),
  costUsd: z.number().positive().nullable().optional().describe('Cost in USD per window'),
  window: z.enum(['day', 'week', 'month']).describe('UTC day, ISO week from Monday, or calendar month'),
});

export const usageLimit = UsageLimitBody.nullable().describe('Enforced by the gateway; null for no limit');

export const toAccess = (agents: 'all' | string[]): AgentAccess =>
  agents === 'all' ? { kind: 'all' } : { kind: 'agents', agentIds: agents };

export const toLimit = (
  limit: { tokens?: number | null; costUsd?: number | null; window: UsageLimit['window'] } | null,
): UsageLimit | null =>
  limit ? { tokens: limit.tokens ?? null, costUsd: limit.costUsd ?? null, window: limit.window } : null;
