// An invitation as the routes answer it (never its token, except `link` once when issued).
import { z } from 'zod';

export const InvitationDto = z.object({
  id: z.string(),
  email: z.string(),
  role: z.enum(['admin', 'member']),
  status: z.enum(['pending', 'accepted', 'revoked']),
  expiresAt: z.string(),
  invitedByUserId: z.string(),
  userId: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const IssuedInvitationDto = InvitationDto.extend({
  link: z
    .string()
    .nullable()
    .describe('The single-use link, in this response only (null on a retried request)'),
});
