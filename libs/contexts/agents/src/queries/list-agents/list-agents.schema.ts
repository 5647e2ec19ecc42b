// GET /agents: the query string.
import { z } from 'zod';

export const AgentListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().min(1).max(512).optional(),
  spaceId: z.string().min(1).max(100).optional().describe('Only Agents of this Space'),
});
