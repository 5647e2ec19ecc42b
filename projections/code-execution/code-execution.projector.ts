// Builds the conversation sandboxes read model (libs/contexts/code-execution/src/sandbox.read-model.ts).
import { defineProjector } from '#eventsourcing';
import {
  CONVERSATION_SANDBOXES,
  SANDBOXES_READ_MODEL,
  type SandboxEvent,
  type SandboxView,
} from '#code-execution';

export const codeExecutionProjector = defineProjector<SandboxEvent>({
  name: SANDBOXES_READ_MODEL.projection,
  version: 1,
  collections: [SANDBOXES_READ_MODEL],
  on: {
    SandboxCreated: async ({ data, metadata }, context) => {
      // A sandbox created again (after a timeout) keeps the conversation's earlier calls listed.
      const earlier = await context.get<SandboxView>(CONVERSATION_SANDBOXES, data.conversationId);
      const doc: SandboxView = {
        id: data.conversationId,
        agentId: data.agentId,
        sandboxId: data.sandboxId,
        state: 'active',
        skills: data.skills,
        calls: earlier?.calls ?? [],
        createdAt: metadata.occurredAt,
        lastUsedAt: metadata.occurredAt,
        destroyedAt: null,
        destroyReason: null,
        rebuiltAt: null,
      };
      return [{ kind: 'upsert', collection: CONVERSATION_SANDBOXES, doc: { ...doc } }];
    },
    SandboxSkillsReplaced: ({ data, metadata }) => [
      {
        kind: 'patch',
        collection: CONVERSATION_SANDBOXES,
        id: data.conversationId,
        set: { skills: data.skills, rebuiltAt: metadata.occurredAt },
      },
    ],
    CodeRan: async ({ data, metadata }, context) => {
      const current = await context.get<SandboxView>(CONVERSATION_SANDBOXES, data.conversationId);
      if (!current || current.calls.some((call) => call.callId === data.callId)) return [];
      const { conversationId: _conversationId, ...call } = data;
      return [
        {
          kind: 'patch',
          collection: CONVERSATION_SANDBOXES,
          id: data.conversationId,
          set: {
            calls: [...current.calls, { ...call, at: metadata.occurredAt }],
            lastUsedAt: metadata.occurredAt,
          },
        },
      ];
    },
    // An erased run (its message or conversation deleted) leaves nothing of it in the read model, also in a rebuild.
    CodeRunsErased: async ({ data }, context) => {
      const current = await context.get<SandboxView>(CONVERSATION_SANDBOXES, data.conversationId);
      const erased = new Set(data.callIds);
      if (!current || !current.calls.some((call) => erased.has(call.callId))) return [];
      return [
        {
          kind: 'patch',
          collection: CONVERSATION_SANDBOXES,
          id: data.conversationId,
          set: { calls: current.calls.filter((call) => !erased.has(call.callId)) },
        },
      ];
    },
    SandboxDestroyed: ({ data, metadata }) => [
      {
        kind: 'patch',
        collection: CONVERSATION_SANDBOXES,
        id: data.conversationId,
        set: { state: 'destroyed', destroyedAt: metadata.occurredAt, destroyReason: data.reason },
      },
    ],
  },
});
