// POST /invitations: the request body.
import { z } from 'zod';

export const InviteUserBody = z.strictObject({
  email: z.email().max(254),
  role: z.enum(['admin', 'member']).default('member'),
});
