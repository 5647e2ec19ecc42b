// POST /invitations: the request body.
import { z } from 'zod';

export const InviteUserBody = z.strictObject({
  email: z.email().max(254),
  role: z.enum(['admin', 'member']).default('member'),
  language: z
    .enum(['de', 'en'])
    .default('en')
    .describe('The language of the invitation mail (the person chooses theirs when accepting)'),
});
