// PATCH /spaces/{spaceId}: the request body.
import { z } from 'zod';
import { color, description, name, slug } from '../../space.schemas.js';

export const ChangeSpaceBody = z
  .strictObject({
    name: name.optional(),
    slug: slug.optional(),
    description: description.optional(),
    color: color.optional(),
  })
  .refine((body) => Object.keys(body).length > 0, 'send at least one of name, slug, description, color');
