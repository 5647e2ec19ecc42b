// The fields of a Space as the Spaces API takes them (the request schemas compose these), and the default slug.
import { z } from 'zod';
import { COLOR_PATTERN, SLUG_PATTERN } from './space.decider.js';

export const name = z.string().trim().min(1).max(120).describe('Unique display name');
export const slug = z
  .string()
  .min(1)
  .max(80)
  .regex(SLUG_PATTERN, 'lowercase letters, digits and single hyphens only')
  .describe('URL-safe: lowercase letters, digits and hyphens');
export const description = z.string().max(2000);
export const color = z.string().regex(COLOR_PATTERN, 'a hex colour such as #1e88e5').describe('Hex colour');

/** "Research & Development!" → "research-development". */
export const slugify = (text: string): string =>
  text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 80) || 'space';
