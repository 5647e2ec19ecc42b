// The App tools an Agent is offered, with what its managers set for each: the tools of the MCP Apps its allowlist
// holds (in a stable order: by App id, then as the server lists them), each with its defaults (on; `ask` when the
// server annotates it destructive, else `auto`) overlaid by the stored settings. The tool list of an Agent, a change
// of one tool and every turn read it here.
import { Inject, Injectable } from '@nestjs/common';
import { READ_STORE, type ReadStore } from '#read-store';
import { APP_ALLOWLIST, APPS, type AppAllowlistEntry, type AppView } from './apps.read-model.js';
import type { ToolApproval } from './agent-tools.events.js';
import { AGENT_TOOL_SETTINGS, type AgentToolSettingView } from './agent-tools.read-model.js';
import { appToolName } from './mcp/app-tool-name.js';
import type { McpToolOffer } from './mcp/mcp-offer.js';

export type McpApp = AppView & {
  readonly source: Extract<AppView['source'], { type: 'mcp' }>;
  readonly mcp: NonNullable<AppView['mcp']>;
};

export interface AgentTool {
  /** The name the model sees: `<appId>__<tool>`. */
  readonly name: string;
  readonly app: McpApp;
  readonly offer: McpToolOffer;
  /** The server annotates it destructive (a hint, never trusted for safety: it only sets the default). */
  readonly destructive: boolean;
  readonly enabled: boolean;
  readonly approval: ToolApproval;
}

const PAGE = 200;

/** What a tool has when nobody set it. */
export const toolDefaults = (
  offer: McpToolOffer,
): { readonly enabled: boolean; readonly approval: ToolApproval } => ({
  enabled: true,
  approval: offer.annotations?.destructiveHint === true ? 'ask' : 'auto',
});

@Injectable()
export class AgentToolCatalog {
  constructor(@Inject(READ_STORE) private readonly readStore: ReadStore) {}

  /** Every App tool the Agent is offered, switched off or not. */
  async tools(agentId: string): Promise<AgentTool[]> {
    const [apps, settings] = await Promise.all([this.mcpApps(agentId), this.settings(agentId)]);
    return apps.flatMap((app) =>
      app.mcp.tools.map((offer) => {
        const name = appToolName(app.id, offer.name);
        const set = settings.get(name);
        const defaults = toolDefaults(offer);
        return {
          name,
          app,
          offer,
          destructive: offer.annotations?.destructiveHint === true,
          enabled: set?.enabled ?? defaults.enabled,
          approval: set?.approval ?? defaults.approval,
        };
      }),
    );
  }

  /** The MCP Apps the Agent's allowlist holds, by id. */
  private async mcpApps(agentId: string): Promise<McpApp[]> {
    const allowlist = this.readStore.reader<AppAllowlistEntry>(APP_ALLOWLIST);
    const apps = this.readStore.reader<AppView>(APPS);
    const found: McpApp[] = [];
    let cursor: string | null = null;
    do {
      const page = await allowlist.find({ agentId }, { limit: PAGE, cursor });
      for (const entry of page.data) {
        const app = await apps.get(entry.appId);
        if (app?.source.type === 'mcp' && app.mcp) found.push(app as McpApp);
      }
      cursor = page.nextCursor;
    } while (cursor);
    return found.sort((a, b) => a.id.localeCompare(b.id));
  }

  private async settings(agentId: string): Promise<Map<string, AgentToolSettingView>> {
    const reader = this.readStore.reader<AgentToolSettingView>(AGENT_TOOL_SETTINGS);
    const found = new Map<string, AgentToolSettingView>();
    let cursor: string | null = null;
    do {
      const page = await reader.find({ agentId }, { limit: PAGE, cursor });
      for (const setting of page.data) found.set(setting.tool, setting);
      cursor = page.nextCursor;
    } while (cursor);
    return found;
  }
}
