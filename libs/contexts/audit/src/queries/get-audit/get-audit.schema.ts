// GET /audit: the query string and the entry every route and the CLI answer.
import { z } from 'zod';

/** An ISO 8601 time of a filter (the audit trail's, a replay's range). */
export const isoTime = z
  .string()
  .max(64)
  .refine((value) => !Number.isNaN(Date.parse(value)), { message: 'must be an ISO 8601 time' });

export const AuditQuery = z
  .object({
    resourceId: z
      .string()
      .min(1)
      .max(100)
      .optional()
      .describe('Entries about this entity or anything inside it (a Space: its Agents, documents, …)'),
    resourceType: z
      .string()
      .min(1)
      .max(40)
      .optional()
      .describe('Only entries about this type (agent, space, …)'),
    actorId: z.string().min(1).max(100).optional().describe('An actor id, or the user behind an API key'),
    action: z.string().min(1).max(100).optional().describe('Words of the action or the exact event type'),
    correlationId: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe('Entries of one request and the cascade it caused'),
    from: isoTime.optional().describe('ISO 8601, inclusive'),
    to: isoTime.optional().describe('ISO 8601, inclusive'),
    order: z.enum(['newest', 'oldest']).default('newest'),
    cursor: z
      .string()
      .regex(/^\d{1,15}$/, 'must be a log position (nextCursor of the previous page)')
      .optional(),
    limit: z.coerce.number().int().min(1).max(500).default(50),
  })
  .strict();

export const AuditEntryDto = z.object({
  position: z.number().describe('Position in the global log'),
  eventId: z.string(),
  occurredAt: z.string(),
  actor: z.object({
    kind: z.enum(['user', 'apiKey', 'app', 'platform']),
    id: z.string(),
    userId: z.string().nullable().describe('The person behind an API key'),
  }),
  credentialKind: z.enum(['apiKey', 'adminApiKey', 'session', 'appToken', 'none']),
  sourceAddress: z.string().nullable().describe('Not recorded in the log yet: null'),
  action: z.string().describe('The action in words'),
  eventType: z.string(),
  resource: z.object({
    type: z.string(),
    id: z.string(),
    streamId: z.string(),
    revision: z.number(),
    itemId: z
      .string()
      .optional()
      .describe('The memory, message or model call of the stream the entry is about'),
  }),
  changes: z
    .array(z.object({ field: z.string(), before: z.unknown(), after: z.unknown() }))
    .describe(
      'Fields that changed, before → after, derived by folding the stream; sealed content shows as "sealed" or "erased"',
    ),
  correlationId: z.string(),
  causationId: z.string().nullable().describe('The event that caused this one (a cascade), if any'),
});
