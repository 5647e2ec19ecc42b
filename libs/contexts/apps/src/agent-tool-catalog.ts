// The App tools an Agent is offered, with what its managers set for each: the tools of the Apps its allowlist holds —
// an MCP server's as it lists them, a URL (or container) App's as its `/meta` declares them — in a stable order (by App
// id, then as listed), each with its defaults (on; `ask` when the App annotates it destructive, else `auto`) overlaid
// by the stored settings. The tool list of an Agent, a change of one tool and every turn read it here: kept per Agent
// while the three projections it is read from run here and apply nothing (ProjectionCache), so a turn does not query
// the read store for it (two finds, ~0.17 ms of every turn before its Knowledge search could start).
import { Inject, Injectable, Optional } from '@nestjs/common';
import { ProjectionCache, ProjectionRunner } from '#eventsourcing';
import { READ_STORE, type ReadStore } from '#read-store';
import {
  APP_ALLOWLIST,
  APPS,
  APPS_READ_MODEL,
  type AppAllowlistEntry,
  type AppView,
} from './apps.read-model.js';
import { APP_ALLOWLIST_PROCESS } from './app-allowlist.process.js';
import type { ToolApproval } from './agent-tools.events.js';
import type { AppMeta, AppMetaTool } from './app.events.js';
import {
  AGENT_TOOL_SETTINGS,
  AGENT_TOOL_SETTINGS_READ_MODEL,
  type AgentToolSettingView,
} from './agent-tools.read-model.js';
import { appToolName } from './mcp/app-tool-name.js';
import type { McpToolOffer } from './mcp/mcp-offer.js';

export type McpApp = AppView & {
  readonly source: Extract<AppView['source'], { type: 'mcp' }>;
  readonly mcp: NonNullable<AppView['mcp']>;
};

/** A URL or container App whose `/meta` declares tools: they are POSTed to it (url-app-tools.ts). */
export type UrlToolApp = AppView & {
  readonly source: Exclude<AppView['source'], { type: 'mcp' }>;
  readonly meta: AppMeta;
};

/** An App whose tools Agents are offered. */
export type ToolApp = McpApp | UrlToolApp;

export const isMcpApp = (app: ToolApp): app is McpApp => app.source.type === 'mcp';

/** A `/meta` tool as the catalog offers it: the defaults of what metas read before could not declare. */
export const urlToolOffer = (tool: AppMetaTool): McpToolOffer => ({
  name: tool.name,
  description: tool.description,
  inputSchema: tool.inputSchema ?? { type: 'object' },
  ...(tool.annotations ? { annotations: tool.annotations } : {}),
});

export interface AgentTool {
  /** The name the model sees: `<appId>__<tool>`. */
  readonly name: string;
  readonly app: ToolApp;
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
  private readonly kept: ProjectionCache<readonly AgentTool[]>;

  constructor(
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Optional() runner?: ProjectionRunner,
  ) {
    this.kept = new ProjectionCache(
      runner,
      [APPS_READ_MODEL.projection, APP_ALLOWLIST_PROCESS, AGENT_TOOL_SETTINGS_READ_MODEL.projection],
      { remoteTtlMs: 0 },
    );
  }

  /** Every App tool the Agent is offered, switched off or not (a list shared with other callers: not to be changed). */
  tools(agentId: string): Promise<readonly AgentTool[]> {
    return this.kept.get(agentId, () => this.read(agentId));
  }

  private async read(agentId: string): Promise<readonly AgentTool[]> {
    const [apps, settings] = await Promise.all([this.toolApps(agentId), this.settings(agentId)]);
    const tools = apps.flatMap((app) =>
      (isMcpApp(app) ? app.mcp.tools : app.meta.tools.map(urlToolOffer)).map((offer) => {
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
    return Object.freeze(tools);
  }

  /** The Apps with tools the Agent's allowlist holds, by id. */
  private async toolApps(agentId: string): Promise<ToolApp[]> {
    const allowlist = this.readStore.reader<AppAllowlistEntry>(APP_ALLOWLIST);
    const apps = this.readStore.reader<AppView>(APPS);
    const found: ToolApp[] = [];
    let cursor: string | null = null;
    do {
      const page = await allowlist.find({ agentId }, { limit: PAGE, cursor });
      for (const entry of page.data) {
        const app = await apps.get(entry.appId);
        if (app?.source.type === 'mcp' && app.mcp) found.push(app as McpApp);
        else if (app && app.source.type !== 'mcp' && (app.meta?.tools.length ?? 0) > 0)
          found.push(app as UrlToolApp);
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
