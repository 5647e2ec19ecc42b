// An Agent as every route answers it: the response schema and the mapping from the read model.
import { z } from 'zod';
import type { AgentView } from '../../agents.read-model.js';
import { INSTANCE_EMBED_LIMITS } from '../../agent.events.js';

export const AgentDto = z.object({
  id: z.string(),
  spaceId: z.string().nullable().describe('null for a personal Agent'),
  name: z.string(),
  model: z.string(),
  systemPrompt: z.string(),
  isPersonal: z.boolean(),
  ownerUserId: z.string().nullable().describe('The owner of a personal Agent'),
  memoryEnabled: z.boolean(),
  sharedMemoryEnabled: z.boolean(),
  isPublic: z.boolean(),
  allowedUrls: z.array(z.string()),
  embedSessionMinutes: z.number(),
  embedWindowTitle: z.string(),
  temperature: z.number().nullable(),
  topP: z.number().nullable(),
  topK: z.number().nullable(),
  knowledgeEnabled: z.boolean(),
  includeAiSummary: z.boolean(),
  conversationTokenBudget: z.number().nullable().describe('null: the instance default'),
  codeExecutionEnabled: z.boolean().describe('Conversations may run code in a sandbox (the run_code tool)'),
  embedLimits: z
    .object({
      visitorMessagesPerMinute: z.number().nullable(),
      agentMessagesPerMinute: z.number().nullable(),
      dailyCostUsd: z.number().nullable(),
    })
    .describe("The embed's abuse limits; null each: the instance default"),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const toAgentDto = (agent: AgentView): z.output<typeof AgentDto> => ({
  id: agent.id,
  spaceId: agent.spaceId,
  name: agent.name,
  model: agent.model,
  systemPrompt: agent.systemPrompt,
  isPersonal: agent.isPersonal,
  ownerUserId: agent.ownerUserId,
  memoryEnabled: agent.memoryEnabled,
  sharedMemoryEnabled: agent.sharedMemoryEnabled,
  isPublic: agent.isPublic,
  allowedUrls: [...agent.allowedUrls],
  embedSessionMinutes: agent.embedSessionMinutes,
  embedWindowTitle: agent.embedWindowTitle,
  temperature: agent.temperature,
  topP: agent.topP,
  topK: agent.topK,
  knowledgeEnabled: agent.knowledgeEnabled,
  includeAiSummary: agent.includeAiSummary,
  conversationTokenBudget: agent.conversationTokenBudget ?? null,
  codeExecutionEnabled: agent.codeExecutionEnabled ?? false,
  embedLimits: { ...INSTANCE_EMBED_LIMITS, ...agent.embedLimits },
  createdAt: agent.createdAt,
  updatedAt: agent.updatedAt,
});
