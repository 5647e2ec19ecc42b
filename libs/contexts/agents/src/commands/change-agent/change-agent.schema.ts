// PUT /agents/{agentId}: the request body.
import { z } from 'zod';
import { optionalSettings } from '../../agent.schemas.js';

export const ChangeAgentBody = z
  .strictObject({
    spaceId: z.string().min(1).max(100).optional().describe('Moves the Agent to another Space'),
    ...optionalSettings,
  })
  .describe('Fields left out keep their value');
