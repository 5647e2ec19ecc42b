// Builds the Agents read model (libs/contexts/agents/src/agents.read-model.ts): one document per live Agent.
import { defineProjector, type EnvelopeOf } from '#eventsourcing';
import type { WriteOp } from '#read-store';
import { agentChanges, type AgentEvent, AGENTS, AGENTS_READ_MODEL } from '#agents';

const changed = (event: EnvelopeOf<AgentEvent>): WriteOp[] => [
  {
    kind: 'patch',
    collection: AGENTS,
    id: event.data.agentId,
    set: { ...agentChanges(event), updatedAt: event.metadata.occurredAt },
  },
];

export const agentsProjector = defineProjector<AgentEvent>({
  name: AGENTS_READ_MODEL.projection,
  version: 1,
  collections: [AGENTS_READ_MODEL],
  on: {
    AgentCreated: (event) => [
      {
        kind: 'upsert',
        collection: AGENTS,
        doc: {
          id: event.data.agentId,
          ...agentChanges(event),
          createdAt: event.metadata.occurredAt,
          updatedAt: event.metadata.occurredAt,
        },
      },
    ],
    AgentDeleted: (event) => [{ kind: 'delete', collection: AGENTS, id: event.data.agentId }],
    AgentRenamed: changed,
    AgentMovedToSpace: changed,
    AgentModelChanged: changed,
    AgentSystemPromptChanged: changed,
    AgentMemoryEnabled: changed,
    AgentMemoryDisabled: changed,
    AgentSharedMemoryEnabled: changed,
    AgentSharedMemoryDisabled: changed,
    AgentMadePublic: changed,
    AgentMadePrivate: changed,
    AgentAllowedUrlsChanged: changed,
    AgentEmbedSessionMinutesChanged: changed,
    AgentEmbedWindowTitleChanged: changed,
    AgentSamplingChanged: changed,
    AgentKnowledgeEnabled: changed,
    AgentKnowledgeDisabled: changed,
    AgentAiSummaryIncluded: changed,
    AgentAiSummaryExcluded: changed,
    AgentConversationBudgetChanged: changed,
    AgentEmbedLimitsChanged: changed,
    AgentCodeExecutionEnabled: changed,
    AgentCodeExecutionDisabled: changed,
  },
});
