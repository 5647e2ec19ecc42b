import { deciderSpec } from '#testing/decider-spec';
import type { AgentToolEvent } from './agent-tools.events.js';
import { agentToolsDecider, type AgentToolsCommand } from './agent-tools.decider.js';

const given = deciderSpec(agentToolsDecider);
const tool = 'app_1__echo';
const change = (
  set: Pick<AgentToolsCommand, 'enabled' | 'approval'>,
  destructive = false,
): AgentToolsCommand => ({
  type: 'ChangeAgentTool',
  agentId: 'agt_1',
  tool,
  defaults: { enabled: true, approval: destructive ? 'ask' : 'auto' },
  ...set,
});
const off: AgentToolEvent = { type: 'AgentToolSwitchedOff', data: { agentId: 'agt_1', tool } };
const on: AgentToolEvent = { type: 'AgentToolSwitchedOn', data: { agentId: 'agt_1', tool } };
const approval = (value: 'auto' | 'ask' | 'never'): AgentToolEvent => ({
  type: 'AgentToolApprovalSet',
  data: { agentId: 'agt_1', tool, approval: value },
});

describe("an Agent's tool settings (decider)", () => {
  it('switch a tool off and on again, each once', () => {
    given()
      .when(change({ enabled: false }))
      .then([off]);
    given(off)
      .when(change({ enabled: false }))
      .then([]);
    given(off)
      .when(change({ enabled: true }))
      .then([on]);
    given()
      .when(change({ enabled: true }))
      .then([]);
  });

  it("set the approval only when it differs from the tool's own (its default, or what was set)", () => {
    given()
      .when(change({ approval: 'ask' }))
      .then([approval('ask')]);
    given()
      .when(change({ approval: 'auto' }))
      .then([]);
    given()
      .when(change({ approval: 'ask' }, true))
      .then([]);
    given()
      .when(change({ approval: 'auto' }, true))
      .then([approval('auto')]);
    given(approval('never'))
      .when(change({ approval: 'never' }))
      .then([]);
    given(approval('never'))
      .when(change({ approval: 'auto' }))
      .then([approval('auto')]);
  });

  it('records both changes of one request', () => {
    given()
      .when(change({ enabled: false, approval: 'never' }))
      .then([off, approval('never')]);
  });
});
