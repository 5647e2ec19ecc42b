import { AGENT_DEFAULTS } from '#agents/agent.decider';
import { projectionHarness } from '#testing/projection-harness';
import { AGENTS } from '#agents';
import { agentsProjector } from './agents.projector.js';

const created = {
  type: 'AgentCreated',
  data: {
    agentId: 'a1',
    spaceId: 's1',
    isPersonal: false,
    ownerUserId: null,
    ...AGENT_DEFAULTS,
    name: 'Helper',
    model: 'm',
  },
};

describe('agents projection', () => {
  it('builds the Agent document with timestamps from the envelope', async () => {
    const h = await projectionHarness(agentsProjector);
    const e1 = h.envelope(created);
    const e2 = h.envelope({
      type: 'AgentSystemPromptChanged',
      data: { agentId: 'a1', systemPrompt: 'Be brief.' },
    });
    const e3 = h.envelope({
      type: 'AgentSamplingChanged',
      data: { agentId: 'a1', temperature: 0.3, topP: null, topK: 5 },
    });
    await h.apply(e1, e2, e3);
    expect(await h.get(AGENTS, 'a1')).toEqual({
      id: 'a1',
      spaceId: 's1',
      isPersonal: false,
      ownerUserId: null,
      ...AGENT_DEFAULTS,
      name: 'Helper',
      model: 'm',
      systemPrompt: 'Be brief.',
      temperature: 0.3,
      topK: 5,
      createdAt: e1.metadata.occurredAt,
      updatedAt: e3.metadata.occurredAt,
    });
  });

  it('reads an AgentCreated stored before conversation budgets existed as the instance default (null)', async () => {
    const h = await projectionHarness(agentsProjector);
    const { conversationTokenBudget: _absent, ...olderData } = created.data;
    await h.apply(h.envelope({ type: 'AgentCreated', data: JSON.parse(JSON.stringify(olderData)) }));
    expect(await h.get(AGENTS, 'a1')).toMatchObject({ name: 'Helper', conversationTokenBudget: null });
  });

  it('reads an AgentCreated stored before code execution existed as off (false), and follows its toggles', async () => {
    const h = await projectionHarness(agentsProjector);
    const { codeExecutionEnabled: _absent, ...olderData } = created.data;
    await h.apply(h.envelope({ type: 'AgentCreated', data: JSON.parse(JSON.stringify(olderData)) }));
    expect(await h.get(AGENTS, 'a1')).toMatchObject({ name: 'Helper', codeExecutionEnabled: false });
    await h.apply(h.envelope({ type: 'AgentCodeExecutionEnabled', data: { agentId: 'a1' } }));
    expect(await h.get(AGENTS, 'a1')).toMatchObject({ codeExecutionEnabled: true });
    await h.apply(h.envelope({ type: 'AgentCodeExecutionDisabled', data: { agentId: 'a1' } }));
    expect(await h.get(AGENTS, 'a1')).toMatchObject({ codeExecutionEnabled: false });
  });

  it('applying the same events twice changes nothing', async () => {
    const h = await projectionHarness(agentsProjector);
    const e1 = h.envelope(created);
    const e2 = h.envelope({ type: 'AgentRenamed', data: { agentId: 'a1', name: 'Second' } });
    await h.apply(e1, e2);
    const once = await h.get(AGENTS, 'a1');
    await h.apply(e1, e2);
    await h.apply(e1);
    expect(await h.get(AGENTS, 'a1')).toEqual(once);
    expect(once).toMatchObject({ name: 'Second' });
  });

  it('removes a deleted Agent, and a replayed delete stays deleted', async () => {
    const h = await projectionHarness(agentsProjector);
    const create = h.envelope(created);
    const del = h.envelope({ type: 'AgentDeleted', data: { agentId: 'a1', reason: 'requested' } });
    await h.apply(create, del);
    await h.apply(del);
    expect(await h.get(AGENTS, 'a1')).toBeNull();
    expect(await h.count(AGENTS)).toBe(0);
  });
});
