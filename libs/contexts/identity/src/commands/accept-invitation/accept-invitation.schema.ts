// POST /invitations/accept: the request body (public: the token is the credential).
import { z } from 'zod';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '../../password.js';

export const AcceptInvitationBody = z.strictObject({
  token: z.string().min(1).max(200).describe('The token of the invitation link'),
  name: z.string().trim().min(1).max(120),
  password: z.string().min(MIN_PASSWORD_LENGTH).max(MAX_PASSWORD_LENGTH),
  language: z.enum(['de', 'en']).optional().describe('Default: from Accept-Language, else en'),
});
