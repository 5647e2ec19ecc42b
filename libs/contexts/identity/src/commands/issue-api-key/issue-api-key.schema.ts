// POST /api-keys: the request body.
import { z } from 'zod';
import { agents, usageLimit } from '../../api-key.schemas.js';

export const IssueApiKeyBody = z.strictObject({
  name: z.string().trim().min(1).max(120),
  owner: z
    .strictObject({ email: z.email().max(254), name: z.string().max(120).optional() })
    .optional()
    .describe(
      "The key's owner; registered as a user when new. Default: the calling key's owner (a key issued for machine " +
        'use belongs to the admin who issues it). A key acts as its owner: it uses an Agent only if its owner may ' +
        '(a role in the Agent’s Space, or an instance admin) and `agents` lists it; removing the owner from a Space ' +
        "ends the key's use of its Agents at once",
    ),
  agents: agents
    .default('all')
    .describe(
      "`all`, or the Agents the key may use: a list narrows its owner's rights, it never widens them",
    ),
  isAdmin: z
    .boolean()
    .default(false)
    .describe(
      'Admin rights (instance settings, keys, users, managing every Agent), while its owner is an admin',
    ),
  usageLimit: usageLimit.default(null),
});
