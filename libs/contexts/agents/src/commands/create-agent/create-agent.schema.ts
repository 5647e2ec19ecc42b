// POST /agents: the request body.
import { z } from 'zod';
import { optionalSettings, settings } from '../../agent.schemas.js';

export const CreateAgentBody = z.strictObject({
  spaceId: z.string().min(1).max(100).describe('The Space the Agent belongs to'),
  ...optionalSettings,
  name: settings.name,
});
