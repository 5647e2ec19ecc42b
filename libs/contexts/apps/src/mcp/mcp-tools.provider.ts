// The Apps context provider: a conversation turn of an Agent offers the tools of the MCP servers (Apps) enabled for
// it, each as `<appId>__<toolName>` with the server's description and input schema. A call's arguments are checked
// against that schema before anything leaves, then sent through the platform's MCP client (a connection per call,
// the configured timeout and result cap, the turn's abort signal); whatever goes wrong — arguments refused, the
// server unreachable, a protocol error, the tool's own error — reaches the model as a tool error, never a failed
// turn. Every call is approved automatically for now. The result is untrusted text for the model, nothing more.
import { Inject, Injectable } from '@nestjs/common';
import type {
  ContextContribution,
  ContextProvider,
  ContextTool,
  ToolOutcome,
  TurnContext,
} from '#conversations';
import { compileSchema, type OutputValidator } from '#agent-generation';
import { PlatformError } from '#kernel';
import { READ_STORE, type ReadStore } from '#read-store';
import { APP_ALLOWLIST, APPS, type AppAllowlistEntry, type AppView } from '../apps.read-model.js';
import { appToolName } from './app-tool-name.js';
import type { McpToolOffer } from './mcp-offer.js';
import { McpServers } from './mcp-servers.js';

/** Chat APIs take at most this many tools in one request; past it the rest of the Apps' tools are left out. */
const MAX_TOOLS = 128;
const PAGE = 200;
/** Compiled input schemas kept (a schema compiles once, not at every call). */
const MAX_VALIDATORS = 500;

type McpApp = AppView & {
  readonly source: Extract<AppView['source'], { type: 'mcp' }>;
  readonly mcp: NonNullable<AppView['mcp']>;
};

const failed = (content: string): ToolOutcome => ({ content, ok: false, sources: [] });

@Injectable()
export class McpToolsContextProvider implements ContextProvider {
  readonly name = 'apps';
  readonly share = 0;
  private readonly validators = new Map<string, OutputValidator>();

  constructor(
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    private readonly servers: McpServers,
  ) {}

  async contribute(turn: TurnContext): Promise<ContextContribution | null> {
    const apps = await this.enabledMcpApps(turn.agent.id);
    const tools: ContextTool[] = [];
    for (const app of apps)
      for (const tool of app.mcp.tools) if (tools.length < MAX_TOOLS) tools.push(this.tool(app, tool));
    return tools.length > 0 ? { system: null, tools } : null;
  }

  /** The MCP Apps the Agent's allowlist holds, in a stable order (by id). */
  private async enabledMcpApps(agentId: string): Promise<McpApp[]> {
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

  private tool(app: McpApp, offer: McpToolOffer): ContextTool {
    const name = appToolName(app.id, offer.name);
    return {
      definition: {
        type: 'function',
        function: {
          name,
          description:
            `${offer.description || offer.title || offer.name} (the tool ${offer.name} of the App ${app.name})`.slice(
              0,
              1024,
            ),
          parameters: { type: 'object', ...offer.inputSchema },
        },
      },
      run: (args: unknown, turn: TurnContext) => this.call(app, offer, args, turn),
    };
  }

  private async call(
    app: McpApp,
    offer: McpToolOffer,
    args: unknown,
    turn: TurnContext,
  ): Promise<ToolOutcome> {
    if (typeof args !== 'object' || args === null || Array.isArray(args))
      return failed(`The arguments of ${offer.name} must be a JSON object.`);
    let problems: string[];
    try {
      problems = this.validator(app, offer)(args);
    } catch (error) {
      return failed(`The input schema of ${offer.name} cannot be checked: ${(error as Error).message}`);
    }
    if (problems.length > 0)
      return failed(
        `The arguments do not match the input schema of ${offer.name}: ${problems.slice(0, 5).join('; ')}`,
      );
    let connection: Awaited<ReturnType<McpServers['connect']>>;
    try {
      connection = await this.servers.connect(app.id, app.source);
    } catch (error) {
      if (error instanceof PlatformError) return failed(error.message);
      throw error;
    }
    try {
      const outcome = await connection.callTool(offer.name, args as Record<string, unknown>, {
        signal: turn.signal,
      });
      return outcome.ok ? { content: outcome.text, ok: true, sources: [] } : failed(outcome.error);
    } finally {
      await connection.close();
    }
  }

  private validator(app: McpApp, offer: McpToolOffer): OutputValidator {
    const key = `${app.id}\u0000${offer.name}\u0000${JSON.stringify(offer.inputSchema)}`;
    let validate = this.validators.get(key);
    if (!validate) {
      validate = compileSchema({ type: 'object', ...offer.inputSchema });
      if (this.validators.size >= MAX_VALIDATORS) this.validators.clear();
      this.validators.set(key, validate);
    }
    return validate;
  }
}
