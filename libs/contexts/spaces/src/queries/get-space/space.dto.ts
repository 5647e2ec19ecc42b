// A Space as every route answers it.
import { z } from 'zod';

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
      'The API key that created the Space (a Space from before members: its owner until a membership is recorded)',
    ),
  createdByUserId: z
    .string()
    .nullable()
    .optional()
    .describe('The user who created the Space signed in (a session): its first owner'),
  isPersonal: z
    .boolean()
    .describe(
      "Its user's private personal Space: only they see it (admins included), it is never shared or deleted",
    ),
  createdAt: z.string().describe('ISO 8601'),
  updatedAt: z.string().describe('ISO 8601'),
});
