// Wire shapes of the Spaces API: they validate requests and generate the OpenAPI document.
import { z } from 'zod';
import { COLOR_PATTERN, SLUG_PATTERN } from '../space.decider.js';

const name = z.string().trim().min(1).max(120).describe('Unique display name');
const slug = z
  .string()
  .min(1)
  .max(80)
  .regex(SLUG_PATTERN, 'lowercase letters, digits and single hyphens only')
  .describe('URL-safe: lowercase letters, digits and hyphens');
const description = z.string().max(2000);
const color = z.string().regex(COLOR_PATTERN, 'a hex colour such as #1e88e5').describe('Hex colour');

export const CreateSpaceBody = z.strictObject({
  name,
  slug: slug.optional().describe('Defaults to the name, lower-cased and hyphenated'),
  description: description.optional(),
  color: color.optional(),
});

export const ChangeSpaceBody = z
  .strictObject({
    name: name.optional(),
    slug: slug.optional(),
    description: description.optional(),
    color: color.optional(),
  })
  .refine((body) => Object.keys(body).length > 0, 'send at least one of name, slug, description, color');

export const SpaceDto = z.object({
  id: z.string(),
  name: z.string(),
  slug: z.string(),
  description: z.string(),
  color: z.string(),
  createdByApiKeyId: z
    .string()
    .nullable()
    .describe(
      'The API key that created the Space: besides admins, the only key that may change or delete it',
    ),
  createdAt: z.string().describe('ISO 8601'),
  updatedAt: z.string().describe('ISO 8601'),
});

/** "Research & Development!" → "research-development". */
export const slugify = (text: string): string =>
  text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 80) || 'space';
