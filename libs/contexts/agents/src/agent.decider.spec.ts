import { AGENT_DEFAULTS, agentDecider, type AgentCommand } from './agent.decider.js';
import type { AgentEvent } from './agent.events.js';
import { deciderSpec } from '#testing/decider-spec';

const given = deciderSpec(agentDecider);

const created: AgentEvent = {
  type: 'AgentCreated',
  data: {
    agentId: 'a1',
    spaceId: 's1',
    isPersonal: false,
    ownerUserId: null,
    ...AGENT_DEFAULTS,
    name: 'Helper',
    model: 'offline-chat',
  },
};
const create = (
  settings: Partial<AgentCommand & { type: 'CreateAgent' }>['settings'] = {
    name: 'Helper',
    model: 'offline-chat',
  },
): AgentCommand => ({
  type: 'CreateAgent',
  agentId: 'a1',
  spaceId: 's1',
  isPersonal: false,
  ownerUserId: null,
  settings: settings!,
});

describe('Agent decider', () => {
  it('creates an Agent with documented defaults (memory on, sampling disabled, knowledge on)', () =>
    given().when(create()).then([created]));

  it('creates a public Agent with memory off, and refuses memory explicitly on for it', () => {
    const state = agentDecider.initialState();
    const [event] = agentDecider.decide(create({ name: 'Pub', model: 'm', isPublic: true }), state);
    expect(event).toMatchObject({ type: 'AgentCreated', data: { isPublic: true, memoryEnabled: false } });
    given()
      .when(create({ name: 'Pub', model: 'm', isPublic: true, memoryEnabled: true }))
      .thenThrows('memory_unavailable_for_public_agent');
  });

  it('records one business fact per changed setting', () =>
    given(created)
      .when({
        type: 'ChangeAgent',
        agentId: 'a1',
        settings: {
          name: 'Helper',
          model: 'gpt-x',
          temperature: 0.2,
          allowedUrls: ['https://a.example'],
          includeAiSummary: true,
        },
      })
      .then([
        { type: 'AgentModelChanged', data: { agentId: 'a1', model: 'gpt-x' } },
        { type: 'AgentAllowedUrlsChanged', data: { agentId: 'a1', allowedUrls: ['https://a.example'] } },
        { type: 'AgentSamplingChanged', data: { agentId: 'a1', temperature: 0.2, topP: null, topK: null } },
        { type: 'AgentAiSummaryIncluded', data: { agentId: 'a1' } },
      ]));

  it('records a conversation token budget, and its return to the instance default', () => {
    given(created)
      .when({ type: 'ChangeAgent', agentId: 'a1', settings: { conversationTokenBudget: 4000 } })
      .then([
        { type: 'AgentConversationBudgetChanged', data: { agentId: 'a1', conversationTokenBudget: 4000 } },
      ]);
    given(created, {
      type: 'AgentConversationBudgetChanged',
      data: { agentId: 'a1', conversationTokenBudget: 4000 },
    })
      .when({ type: 'ChangeAgent', agentId: 'a1', settings: { conversationTokenBudget: null } })
      .then([
        { type: 'AgentConversationBudgetChanged', data: { agentId: 'a1', conversationTokenBudget: null } },
      ]);
    given(created)
      .when({ type: 'ChangeAgent', agentId: 'a1', settings: { conversationTokenBudget: null } })
      .then([]);
  });

  it("records the embed's abuse limits, and nothing when they are unchanged", () => {
    const limits = { visitorMessagesPerMinute: 3, agentMessagesPerMinute: null, dailyCostUsd: 1.5 };
    given(created)
      .when({ type: 'ChangeAgent', agentId: 'a1', settings: { embedLimits: limits } })
      .then([{ type: 'AgentEmbedLimitsChanged', data: { agentId: 'a1', embedLimits: limits } }]);
    given(created, { type: 'AgentEmbedLimitsChanged', data: { agentId: 'a1', embedLimits: limits } })
      .when({ type: 'ChangeAgent', agentId: 'a1', settings: { embedLimits: { ...limits } } })
      .then([]);
    given(created)
      .when({ type: 'ChangeAgent', agentId: 'a1', settings: { embedLimits: AGENT_DEFAULTS.embedLimits } })
      .then([]);
  });

  it('turns code execution on and off, and records nothing when it is unchanged', () => {
    given(created)
      .when({ type: 'ChangeAgent', agentId: 'a1', settings: { codeExecutionEnabled: true } })
      .then([{ type: 'AgentCodeExecutionEnabled', data: { agentId: 'a1' } }]);
    given(created, { type: 'AgentCodeExecutionEnabled', data: { agentId: 'a1' } })
      .when({ type: 'ChangeAgent', agentId: 'a1', settings: { codeExecutionEnabled: false } })
      .then([{ type: 'AgentCodeExecutionDisabled', data: { agentId: 'a1' } }]);
    given(created)
      .when({ type: 'ChangeAgent', agentId: 'a1', settings: { codeExecutionEnabled: false } })
      .then([]);
    given(created, { type: 'AgentCodeExecutionEnabled', data: { agentId: 'a1' } })
      .when({ type: 'ChangeAgent', agentId: 'a1', settings: { codeExecutionEnabled: true } })
      .then([]);
  });

  it('turns memory off when an Agent is made public', () =>
    given(created)
      .when({ type: 'ChangeAgent', agentId: 'a1', settings: { isPublic: true } })
      .then([
        { type: 'AgentMemoryDisabled', data: { agentId: 'a1' } },
        { type: 'AgentMadePublic', data: { agentId: 'a1' } },
      ]));

  it('refuses to enable memory on a public Agent', () =>
    given(created, { type: 'AgentMadePublic', data: { agentId: 'a1' } })
      .when({ type: 'ChangeAgent', agentId: 'a1', settings: { memoryEnabled: true } })
      .thenThrows('memory_unavailable_for_public_agent'));

  it('disables a sampling control with null', () =>
    given(created, {
      type: 'AgentSamplingChanged',
      data: { agentId: 'a1', temperature: 0.5, topP: 0.9, topK: 40 },
    })
      .when({ type: 'ChangeAgent', agentId: 'a1', settings: { topK: null } })
      .then([
        { type: 'AgentSamplingChanged', data: { agentId: 'a1', temperature: 0.5, topP: 0.9, topK: null } },
      ]));

  it('changes the system prompt only when it differs', () => {
    given(created)
      .when({ type: 'ChangeAgentSystemPrompt', agentId: 'a1', systemPrompt: 'Be brief.' })
      .then([{ type: 'AgentSystemPromptChanged', data: { agentId: 'a1', systemPrompt: 'Be brief.' } }]);
    given(created).when({ type: 'ChangeAgentSystemPrompt', agentId: 'a1', systemPrompt: '' }).then([]);
  });

  it('moves between Spaces, but never a personal Agent', () => {
    given(created)
      .when({ type: 'ChangeAgent', agentId: 'a1', spaceId: 's2', settings: {} })
      .then([{ type: 'AgentMovedToSpace', data: { agentId: 'a1', spaceId: 's2' } }]);
    const personal: AgentEvent = {
      ...created,
      data: { ...created.data, isPersonal: true, spaceId: null },
    } as AgentEvent;
    given(personal)
      .when({ type: 'ChangeAgent', agentId: 'a1', spaceId: 's2', settings: {} })
      .thenThrows('personal_agent_has_no_space');
  });

  it('never makes a personal Agent public, on creation or change; it stays private when told so', () => {
    const personal: AgentEvent = {
      ...created,
      data: { ...created.data, isPersonal: true, spaceId: null, ownerUserId: 'u1' },
    } as AgentEvent;
    given(personal)
      .when({ type: 'ChangeAgent', agentId: 'a1', settings: { isPublic: true, allowedUrls: ['*'] } })
      .thenThrows('personal_agent_cannot_be_public');
    given(personal)
      .when({ type: 'ChangeAgent', agentId: 'a1', settings: { isPublic: false } })
      .then([]);
    given()
      .when({
        type: 'CreateAgent',
        agentId: 'a1',
        spaceId: null,
        isPersonal: true,
        ownerUserId: 'u1',
        settings: { name: 'Mine', model: 'm', isPublic: true },
      })
      .thenThrows('personal_agent_cannot_be_public');
  });

  it("creates a user's personal Agent once: nothing when it exists (a replayed registration)", () => {
    const personal = {
      type: 'CreatePersonalAgent',
      agentId: 'a1',
      ownerUserId: 'u1',
      spaceId: null,
      settings: { name: "Ada's assistant", model: 'offline-chat' },
    } as const;
    given()
      .when(personal)
      .then([
        {
          type: 'AgentCreated',
          data: {
            agentId: 'a1',
            spaceId: null,
            isPersonal: true,
            ownerUserId: 'u1',
            ...AGENT_DEFAULTS,
            name: "Ada's assistant",
            model: 'offline-chat',
          },
        },
      ]);
    given(created).when(personal).then([]);
  });

  it('deletes once, and a deleted Agent cannot be changed', () => {
    const deleted: AgentEvent = { type: 'AgentDeleted', data: { agentId: 'a1', reason: 'requested' } };
    given(created).when({ type: 'DeleteAgent', agentId: 'a1', reason: 'requested' }).then([deleted]);
    given(created, deleted).when({ type: 'DeleteAgent', agentId: 'a1', reason: 'space_deleted' }).then([]);
    given(created, deleted)
      .when({ type: 'ChangeAgentSystemPrompt', agentId: 'a1', systemPrompt: 'x' })
      .thenThrows('agent_not_found');
    given().when({ type: 'DeleteAgent', agentId: 'a1', reason: 'requested' }).thenThrows('agent_not_found');
  });

  it("puts a personal Agent from before personal Spaces into its user's, once; never a shared Agent", () => {
    const personal: AgentEvent = {
      ...created,
      data: { ...created.data, spaceId: null, isPersonal: true, ownerUserId: 'u1' },
    } as AgentEvent;
    given(personal)
      .when({ type: 'PlacePersonalAgent', agentId: 'a1', spaceId: 'spc_p' })
      .then([{ type: 'AgentMovedToSpace', data: { agentId: 'a1', spaceId: 'spc_p' } }]);
    given(personal, { type: 'AgentMovedToSpace', data: { agentId: 'a1', spaceId: 'spc_p' } })
      .when({ type: 'PlacePersonalAgent', agentId: 'a1', spaceId: 'spc_q' })
      .then([]);
    given(created).when({ type: 'PlacePersonalAgent', agentId: 'a1', spaceId: 'spc_p' }).then([]);
  });
});
