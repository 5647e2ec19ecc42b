// Wire shapes of the memory routes: they validate requests and generate the OpenAPI document.
import { z } from 'zod';
import { AsOfQuery } from '#http';

export const MEMORY_TEXT_MAX = 2_000;

export const MemoryDto = z.object({
  id: z.string(),
  agentId: z.string(),
  bucket: z
    .enum(['personal', 'shared'])
    .describe('personal: only its user sees it; shared: every user of the Agent'),
  text: z.string(),
  version: z.number().int(),
  lastUsedAt: z
    .string()
    .describe(
      'When it was last added, changed or recalled into an answer (the cap retires the least recently used)',
    ),
  createdAt: z.string(),
  updatedAt: z.string(),
  savedFrom: z
    .object({ conversationId: z.string(), messageId: z.string() })
    .optional()
    .describe(
      'The answer of your own conversation it was saved at (a turn remembered it, or you confirmed its proposal there)',
    ),
  contributor: z
    .object({
      userId: z
        .string()
        .nullable()
        .describe('The user who added it (for a confirmed proposal: who confirmed it)'),
      via: z
        .enum(['direct', 'proposal', 'extraction'])
        .describe(
          "direct: written through the API (shared: by the Agent's manager or an admin); proposal: a confirmed proposal",
        ),
    })
    .optional()
    .describe("Shared memories, listed by the Agent's manager or an admin: who contributed it"),
  answers: z
    .array(z.object({ conversationId: z.string(), messageId: z.string(), at: z.string() }))
    .optional()
    .describe(
      "Shared memories, listed by the Agent's manager or an admin: the answers that used it, oldest first",
    ),
});

export const MemoryListQuery = z.object({
  bucket: z
    .enum(['personal', 'shared', 'all'])
    .default('all')
    .describe('Which memories: mine, the shared ones, or both'),
  asOf: AsOfQuery.shape.asOf.describe(
    'The memories as they were at this time (ISO 8601), folded from the log',
  ),
});

export const AddMemoryBody = z.strictObject({
  text: z.string().trim().min(1).max(MEMORY_TEXT_MAX),
  bucket: z
    .enum(['personal', 'shared'])
    .default('personal')
    .describe("shared needs the Agent's sharedMemoryEnabled and its manager (or an admin)"),
});

export const ChangeMemoryBody = z.strictObject({ text: z.string().trim().min(1).max(MEMORY_TEXT_MAX) });

export const RollBackMemoryBody = z.strictObject({
  version: z.number().int().min(1).describe('The earlier version whose text comes back (as a new version)'),
});

export const ClearMemoriesQuery = z.object({
  bucket: z
    .enum(['personal', 'shared'])
    .default('personal')
    .describe("shared needs the Agent's manager or an admin"),
});

export const MemoryVersionDto = z.object({
  version: z.number().int(),
  text: z.string().nullable(),
  reason: z.enum(['added', 'edited', 'superseded', 'rolled_back']),
  rolledBackTo: z.number().int().nullable(),
  by: z
    .string()
    .nullable()
    .describe('The user who wrote it; null when the extractor superseded a contradicted fact'),
  source: z.object({
    kind: z.enum(['extraction', 'api', 'proposal']),
    conversationId: z.string().nullable(),
    messageId: z.string().nullable().describe('The conversation message that caused it'),
  }),
  at: z.string(),
});

export const MemoryAnswersDto = z.object({
  data: z.array(z.object({ conversationId: z.string(), messageId: z.string(), at: z.string() })),
});

export const ProposalDto = z.object({
  id: z.string(),
  agentId: z.string(),
  text: z.string().nullable(),
  state: z.enum(['pending', 'confirmed', 'kept_personal', 'discarded', 'flagged']),
  memoryId: z.string().nullable(),
  conversationId: z.string(),
  messageId: z.string(),
  createdAt: z.string(),
  answeredAt: z.string().nullable(),
});

export const ProposalListQuery = z.object({
  state: z.enum(['pending', 'all']).default('pending'),
});

export const AnswerProposalBody = z.strictObject({
  answer: z
    .enum(['confirm', 'personal', 'discard'])
    .describe(
      'confirm: saved as shared (every user of the Agent); personal: saved for me only; discard: not saved',
    ),
});
