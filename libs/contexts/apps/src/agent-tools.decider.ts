// The decision over an Agent's tool settings: a manager's change records only what differs from what the tool has
// now (its stored setting, else its default, which the command brings: the decider reads no App), so repeating a
// change records nothing.
import { decideByType, type Decider } from '#eventsourcing';
import {
  evolveAgentTools,
  initialAgentToolsState,
  type AgentToolEvent,
  type AgentToolsState,
  type ToolApproval,
} from './agent-tools.events.js';

export type AgentToolsCommand = {
  readonly type: 'ChangeAgentTool';
  readonly agentId: string;
  readonly tool: string;
  /** What the tool has when nobody set it (its server's annotations decide the approval). */
  readonly defaults: { readonly enabled: boolean; readonly approval: ToolApproval };
  readonly enabled?: boolean;
  readonly approval?: ToolApproval;
};

function changeAgentTool(command: AgentToolsCommand, state: AgentToolsState): AgentToolEvent[] {
  const { agentId, tool } = command;
  const now = { ...command.defaults, ...state.tools.get(tool) };
  const events: AgentToolEvent[] = [];
  if (command.enabled !== undefined && command.enabled !== now.enabled)
    events.push({
      type: command.enabled ? 'AgentToolSwitchedOn' : 'AgentToolSwitchedOff',
      data: { agentId, tool },
    });
  if (command.approval !== undefined && command.approval !== now.approval)
    events.push({ type: 'AgentToolApprovalSet', data: { agentId, tool, approval: command.approval } });
  return events;
}

export const agentToolsDecider: Decider<AgentToolsState, AgentToolsCommand, AgentToolEvent> = {
  initialState: initialAgentToolsState,
  evolve: evolveAgentTools,
  decide: decideByType<AgentToolsState, AgentToolsCommand, AgentToolEvent>({
    ChangeAgentTool: changeAgentTool,
  }),
};
