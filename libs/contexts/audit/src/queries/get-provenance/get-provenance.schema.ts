// GET /provenance: which answers used a source. `source` names it as `<kind>:<id>[@<version>]`.
import { z } from 'zod';
import { ListQuery } from '#http';

export const SOURCE_PATTERN = /^(document|chunk|skill|memory|prompt):([^@\s]{1,200})(?:@([^@\s]{1,128}))?$/;

export const ProvenanceQuery = ListQuery.extend({
  source: z
    .string()
    .max(340)
    .regex(
      SOURCE_PATTERN,
      'must be document:<id>[@version], chunk:<chunkId>, skill:<id>[@number|versionId], ' +
        'memory:<id>[@version], prompt:<agentId>[@systemPromptSha256] or prompt:<promptId>[@version]',
    )
    .describe(
      'The source: `document:<id>[@<version>]`, `chunk:<documentId>:<version>:<index>` (a search hit’s chunkId), ' +
        '`skill:<id>[@<number or skv_ id>]`, `memory:<id>[@<version>]`, `prompt:<agentId>[@<systemPromptSha256>]` (an Agent’s ' +
        'system prompt), `prompt:<promptId>[@<version>]` (a Space prompt library’s prompt a turn started from)',
    ),
  retrieved: z
    .enum(['true', 'false'])
    .default('false')
    .describe(
      'A document or chunk: also the answers whose prompt held it without citing it (retrieved, uncited); by default ' +
        'only the answers that cite it',
    ),
}).strict();

export const ProvenanceAnswerDto = z.object({
  conversationId: z.string(),
  messageId: z.string(),
  at: z.string().describe('When the answer was recorded'),
  userId: z.string().describe('The user whose conversation it is'),
  agentId: z.string(),
  version: z.string().describe("The source's version the answer used"),
  versionId: z.string().nullable().describe("A Skill version's id"),
  passages: z
    .array(z.object({ start: z.number(), end: z.number(), sectionPath: z.array(z.string()) }))
    .describe('For a document or chunk: the passages the answer cited'),
  cited: z.boolean().describe('A document: the answer cites it (false: its prompt held it, uncited)'),
  messageDeleted: z.boolean().describe('The answer was deleted since'),
  conversationDeleted: z.boolean(),
});

export const ProvenanceDto = z.object({
  source: z.object({
    kind: z.enum(['document', 'chunk', 'skill', 'memory', 'prompt']),
    id: z.string(),
    version: z.string().nullable(),
    status: z
      .enum(['live', 'deleted', 'unknown'])
      .describe('A document or Skill: whether it still exists (a deleted one keeps its answers listed)'),
    name: z.string().nullable(),
    currentVersion: z
      .string()
      .nullable()
      .describe(
        'A live document’s or Skill’s current (active) version: answers of older ones used superseded content',
      ),
  }),
  data: z.array(ProvenanceAnswerDto),
  nextCursor: z.string().nullable(),
});
