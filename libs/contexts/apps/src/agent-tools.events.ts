// The settings of the App tools one Agent is offered, in a stream per Agent kept by the Apps context: which tools its
// managers switched off, and which need a person's approval per call (`ask`) or are never offered (`never`). Only
// what a manager chose is stored; a tool nobody set follows its defaults (on; `ask` when its server annotates it
// destructive, else `auto`), so a tool a server adds later starts from its own defaults.
import type { DomainEvent } from '#kernel';

/** How a call of the tool is approved: by itself, by the person whose turn it is, or not at all (never offered). */
export type ToolApproval = 'auto' | 'ask' | 'never';
export const TOOL_APPROVALS = ['auto', 'ask', 'never'] as const;

/** `tool` is the name the model sees (`<appId>__<toolName>`). */
type Id = { readonly agentId: string; readonly tool: string };

export type AgentToolEvent =
  | DomainEvent<'AgentToolSwitchedOff', Id>
  | DomainEvent<'AgentToolSwitchedOn', Id>
  | DomainEvent<'AgentToolApprovalSet', Id & { readonly approval: ToolApproval }>;

export interface AgentToolSetting {
  readonly enabled?: boolean;
  readonly approval?: ToolApproval;
}

export interface AgentToolsState {
  readonly tools: ReadonlyMap<string, AgentToolSetting>;
}

export const agentToolsStreamId = (agentId: string): string => `agent-tools-${agentId}`;

export const initialAgentToolsState = (): AgentToolsState => ({ tools: new Map() });

const withSetting = (state: AgentToolsState, tool: string, change: AgentToolSetting): AgentToolsState => ({
  tools: new Map(state.tools).set(tool, { ...state.tools.get(tool), ...change }),
});

export function evolveAgentTools(state: AgentToolsState, event: AgentToolEvent): AgentToolsState {
  switch (event.type) {
    case 'AgentToolSwitchedOff':
      return withSetting(state, event.data.tool, { enabled: false });
    case 'AgentToolSwitchedOn':
      return withSetting(state, event.data.tool, { enabled: true });
    case 'AgentToolApprovalSet':
      return withSetting(state, event.data.tool, { approval: event.data.approval });
  }
}
