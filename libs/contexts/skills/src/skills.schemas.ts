// Wire shapes of the Skill routes: they validate requests and generate the OpenAPI document.
import { z } from 'zod';
import { MAX_DESCRIPTION_CHARS, MAX_INSTRUCTIONS_CHARS } from './bundle/skill-manifest.js';
import { AsOfQuery } from '#http';

const id = z.string().min(1).max(128);

export const CreateSkillBody = z.strictObject({
  spaceId: id
    .optional()
    .describe('Available to this Space and its Agents (name exactly one of spaceId, agentId)'),
  agentId: id.optional().describe('Available to this Agent only'),
  name: z.string().describe('1–64 lowercase letters, digits and single hyphens (the Agent Skills format)'),
  description: z.string().describe(`When to use it (the trigger), 1–${MAX_DESCRIPTION_CHARS} characters`),
  instructions: z
    .string()
    .max(MAX_INSTRUCTIONS_CHARS)
    .describe('The procedure the Agent follows once loaded'),
  publish: z
    .boolean()
    .default(false)
    .describe('Publish at once (else it stays a draft that Agents do not load)'),
});

export const SaveDraftBody = z
  .strictObject({
    name: z.string().optional(),
    description: z.string().optional(),
    instructions: z.string().max(MAX_INSTRUCTIONS_CHARS).optional(),
  })
  .refine((body) => Object.keys(body).length > 0, {
    message: 'name at least one of name, description, instructions',
  });

export const UploadFields = z.strictObject({
  spaceId: id.optional(),
  agentId: id.optional(),
  publish: z
    .enum(['true', 'false'])
    .default('false')
    .transform((value) => value === 'true'),
});

export const ActiveVersionBody = z.strictObject({
  versionId: id.describe('A published version: setting an earlier one back is a rollback'),
});

export const PlacementBody = z.strictObject({
  spaceId: id.optional(),
  agentId: id.optional(),
});

export const SkillListQuery = z.object({
  spaceId: id.optional().describe("The Space's Skills"),
  agentId: id.optional().describe("Every Skill the Agent has: its own, its Space's and the DEFAULT ones"),
  asOf: AsOfQuery.shape.asOf.describe(
    'With agentId: the Skills the Agent had available at this time (ISO 8601), each with the version active then',
  ),
});

export const MarketplaceListQuery = z.object({
  archived: z
    .enum(['false', 'true', 'all'])
    .default('false')
    .describe(
      '`false`: the listed entries (everyone); `true`: the archived ones; `all`: both (admins only: 403 ' +
        '`marketplace_admin_only` otherwise)',
    ),
});

const FileDto = z.object({ path: z.string(), sizeBytes: z.number().int(), sha256: z.string() });

export const SkillVersionDto = z.object({
  id: z.string(),
  number: z.number().int(),
  state: z.enum(['draft', 'published']),
  name: z.string(),
  description: z.string(),
  instructions: z.string().nullable().describe('null in lists'),
  files: z.array(FileDto),
  createdAt: z.string(),
  publishedAt: z.string().nullable(),
});

export const SkillDto = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  placement: z.enum(['space', 'agent', 'global']),
  spaceId: z.string().nullable(),
  agentId: z.string().nullable(),
  source: z.enum(['CUSTOM', 'DEFAULT', 'MARKETPLACE']),
  provider: z.string().nullable(),
  sourceId: z.string().nullable().describe('For an installed Skill: the marketplace Skill it came from'),
  creatorType: z.enum(['PLATFORM', 'USER']),
  creatorId: z.string().nullable(),
  activeVersionId: z.string().nullable().describe('The published version Agents load'),
  draftVersionId: z.string().nullable(),
  marketplace: z.enum(['unlisted', 'listed', 'archived']),
  versions: z
    .array(SkillVersionDto)
    .optional()
    .describe('Every version (instructions: null here; GET …/versions/{versionId} has them)'),
  createdAt: z.string(),
  updatedAt: z.string(),
});
