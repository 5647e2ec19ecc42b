// POST /spaces: the request body.
import { z } from 'zod';
import { color, description, name, slug } from '../../space.schemas.js';

export const CreateSpaceBody = z.strictObject({
  name,
  slug: slug.optional().describe('Defaults to the name, lower-cased and hyphenated'),
  description: description.optional(),
  color: color.optional(),
});
