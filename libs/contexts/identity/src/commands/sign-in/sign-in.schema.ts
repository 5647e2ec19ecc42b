// POST /auth/sign-in: the request body.
import { z } from 'zod';
import { MAX_PASSWORD_LENGTH } from '../../password.js';

export const SignInBody = z.strictObject({
  email: z.string().trim().min(1).max(254),
  password: z.string().min(1).max(MAX_PASSWORD_LENGTH),
});
