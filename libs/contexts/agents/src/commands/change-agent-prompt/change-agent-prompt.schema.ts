// PUT /agents/{agentId}/prompt: the request body.
import { z } from 'zod';
import { settings } from '../../agent.schemas.js';

export const ChangeAgentPromptBody = z.strictObject({ systemPrompt: settings.systemPrompt });
