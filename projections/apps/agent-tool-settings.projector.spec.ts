import { projectionHarness } from '#testing/projection-harness';
import { AGENT_TOOL_SETTINGS } from '#apps';
import { agentToolSettingsProjector } from './agent-tool-settings.projector.js';

const data = { agentId: 'agt_1', tool: 'app_1__echo' };

describe('agent tool settings projection', () => {
  it("keeps each setting a manager changed in the tool's document", async () => {
    const h = await projectionHarness(agentToolSettingsProjector);
    await h.apply(
      h.envelope({ type: 'AgentToolSwitchedOff', data }),
      h.envelope({ type: 'AgentToolApprovalSet', data: { ...data, approval: 'ask' } }),
    );
    expect(await h.get(AGENT_TOOL_SETTINGS, 'agt_1:app_1__echo')).toMatchObject({
      id: 'agt_1:app_1__echo',
      ...data,
      enabled: false,
      approval: 'ask',
    });
  });

  it('changes nothing when the same event is applied twice', async () => {
    const h = await projectionHarness(agentToolSettingsProjector);
    const on = h.envelope({ type: 'AgentToolSwitchedOn', data });
    await h.apply(on);
    await h.apply(on);
    expect(await h.get(AGENT_TOOL_SETTINGS, 'agt_1:app_1__echo')).toMatchObject({ ...data, enabled: true });
  });

  it("drops a deleted Agent's settings and keeps another Agent's", async () => {
    const h = await projectionHarness(agentToolSettingsProjector);
    const other = { agentId: 'agt_2', tool: 'app_1__echo' };
    await h.apply(
      h.envelope({ type: 'AgentToolSwitchedOff', data }),
      h.envelope({
        type: 'AgentToolApprovalSet',
        data: { agentId: 'agt_1', tool: 'app_1__add', approval: 'never' },
      }),
      h.envelope({ type: 'AgentToolSwitchedOff', data: other }),
    );
    await h.apply(h.envelope({ type: 'AgentDeleted', data: { agentId: 'agt_1' } }));
    expect(await h.get(AGENT_TOOL_SETTINGS, 'agt_1:app_1__echo')).toBeNull();
    expect(await h.get(AGENT_TOOL_SETTINGS, 'agt_1:app_1__add')).toBeNull();
    expect(await h.get(AGENT_TOOL_SETTINGS, 'agt_2:app_1__echo')).toMatchObject({ enabled: false });
  });
});
