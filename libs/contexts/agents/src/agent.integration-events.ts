// What others hear of Agents (integration events, see #integration-events): their lifecycle (created, moved, deleted)
// and that a setting changed (which one, not its value: consumers read the Agent through the API, under its policy).
import { defineIntegrationEvents, type MappedEvent } from '#integration-events';
import type { AgentEvent } from './agent.events.js';

const setting =
  (name: string) =>
  (event: { readonly data: { readonly agentId: string } }): MappedEvent => ({
    fact: 'settings-changed',
    subject: { agentId: event.data.agentId },
    data: { setting: name },
  });

export const AGENT_INTEGRATION_EVENTS = defineIntegrationEvents<AgentEvent>('agent', {
  AgentCreated: ({ data }) => ({
    fact: 'created',
    subject: { agentId: data.agentId, spaceId: data.spaceId, ownerUserId: data.ownerUserId },
    data: { name: data.name, model: data.model, isPersonal: data.isPersonal },
  }),
  AgentMovedToSpace: ({ data }) => ({
    fact: 'moved',
    subject: { agentId: data.agentId, spaceId: data.spaceId },
  }),
  AgentDeleted: ({ data }) => ({
    fact: 'deleted',
    subject: { agentId: data.agentId },
    data: { reason: data.reason },
  }),
  AgentRenamed: setting('name'),
  AgentModelChanged: setting('model'),
  AgentSystemPromptChanged: setting('systemPrompt'),
  AgentMemoryEnabled: setting('memoryEnabled'),
  AgentMemoryDisabled: setting('memoryEnabled'),
  AgentSharedMemoryEnabled: setting('sharedMemoryEnabled'),
  AgentSharedMemoryDisabled: setting('sharedMemoryEnabled'),
  AgentMadePublic: setting('isPublic'),
  AgentMadePrivate: setting('isPublic'),
  AgentAllowedUrlsChanged: setting('allowedUrls'),
  AgentEmbedSessionMinutesChanged: setting('embedSessionMinutes'),
  AgentEmbedWindowTitleChanged: setting('embedWindowTitle'),
  AgentSamplingChanged: setting('sampling'),
  AgentKnowledgeEnabled: setting('knowledgeEnabled'),
  AgentKnowledgeDisabled: setting('knowledgeEnabled'),
  AgentAiSummaryIncluded: setting('includeAiSummary'),
  AgentAiSummaryExcluded: setting('includeAiSummary'),
  AgentConversationBudgetChanged: setting('conversationTokenBudget'),
  AgentCodeExecutionEnabled: setting('codeExecutionEnabled'),
  AgentCodeExecutionDisabled: setting('codeExecutionEnabled'),
  AgentEmbedLimitsChanged: setting('embedLimits'),
});
