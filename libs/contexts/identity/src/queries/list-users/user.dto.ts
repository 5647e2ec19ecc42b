// A user as the routes answer it (never a password hash).
import { z } from 'zod';

export const UserDto = z.object({
  id: z.string(),
  email: z.string(),
  name: z.string(),
  role: z.enum(['admin', 'member']),
  status: z.enum(['active', 'deactivated']).optional(),
  language: z.enum(['de', 'en']).optional(),
  hasPassword: z.boolean().optional(),
  usageWindowStart: z.string().optional(),
  createdAt: z.string(),
  updatedAt: z.string().optional(),
});
