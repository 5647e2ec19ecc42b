// PATCH /users/{userId}: the request body.
import { z } from 'zod';

export const ChangeUserBody = z.strictObject({
  role: z.enum(['admin', 'member']),
});
