// The settings a manager gave an Agent's App tools (agent-tools.events.ts): one document per (Agent, tool) that has
// one; a tool without a document follows its defaults. Built by projections/apps/agent-tool-settings.projector.ts;
// read by the tool list of an Agent and by its turns (agent-tool-catalog.ts).
import { defineReadModel } from '#eventsourcing';
import type { ToolApproval } from './agent-tools.events.js';

export interface AgentToolSettingView {
  /** `{agentId}:{tool}`. */
  readonly id: string;
  readonly agentId: string;
  /** The name the model sees (`<appId>__<toolName>`). */
  readonly tool: string;
  readonly enabled?: boolean;
  readonly approval?: ToolApproval;
}

export const AGENT_TOOL_SETTINGS = 'agent_tool_settings';
export const agentToolSettingId = (agentId: string, tool: string): string => `${agentId}:${tool}`;

export const AGENT_TOOL_SETTINGS_READ_MODEL = defineReadModel<AgentToolSettingView>({
  name: AGENT_TOOL_SETTINGS,
  projection: 'agent-tool-settings',
  indexes: [{ fields: ['agentId'] }],
});
