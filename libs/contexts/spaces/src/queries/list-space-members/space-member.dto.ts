// A Space membership as the routes answer it, and the roles as the OpenAPI names them.
import { z } from 'zod';

export const SpaceRoleSchema = z
  .enum(['member', 'editor', 'owner'])
  .describe(
    'owner: everything, including members and deleting the Space; editor: create and change the Space’s Agents, ' +
      'Knowledge, tags, Skills and prompts, and add members up to editor; member: use the Space’s Agents ' +
      '(conversations, their own memories, generate endpoints), read its Knowledge and prompts',
  );

export const SpaceMemberDto = z.object({
  spaceId: z.string(),
  userId: z.string(),
  name: z.string().nullable().describe('The member’s name (null for a user no longer known)'),
  role: SpaceRoleSchema,
  addedAt: z.string().describe('ISO 8601'),
  updatedAt: z.string().describe('ISO 8601'),
});
