// The Apps context provider: a conversation turn of an Agent offers the tools of the Apps enabled for it (MCP
// servers', and those URL Apps declare in their `/meta`), each as `<appId>__<toolName>` with the App's description
// and input schema, except those the Agent's managers switched off or set to `never` (agent-tool-catalog.ts); a tool
// set to `ask` waits, at each call, for the approval of the person whose turn it is (the turn's runtime asks), and
// every call is recorded. A call's arguments are checked against that schema before anything leaves, then sent
// through the platform's MCP client (a connection per call, the configured timeout and result cap, the turn's abort
// signal, what the server asks meanwhile served through the call's session with its turn: mcp-call-host.ts; an App
// that signs in each person reached with the person's account) or POSTed to the URL App (url/url-app-client.ts);
// whatever goes wrong — arguments refused, the server unreachable, a protocol error, the tool's own error, a person
// not connected to an App that signs in each person — reaches the model as a tool error, never a failed turn. The
// result is untrusted text for the model, nothing more.
import { Injectable } from '@nestjs/common';
import type {
  ContextContribution,
  ContextProvider,
  ContextTool,
  ToolCallSession,
  ToolOutcome,
  TurnContext,
} from '#conversations';
import { compileSchema, type OutputValidator } from '#agent-generation';
import { PlatformError } from '#kernel';
import type { CommandContext } from '#eventsourcing';
import { commandContext, type Caller } from '#access';
import { AgentToolCatalog, isMcpApp, type AgentTool, type ToolApp } from '../agent-tool-catalog.js';
import { UrlAppClient } from '../url/url-app-client.js';
import type { McpToolOffer } from './mcp-offer.js';
import { McpServers, type McpPerson } from './mcp-servers.js';
import { modelMayCall, toolView, viewResult } from './mcp-app-view.js';
import { mcpCallHost } from './mcp-call-host.js';
import { McpListChanged } from './mcp-list-changed.js';
import { appOAuthConnectPath } from './oauth/oauth-state.js';

/** Chat APIs take at most this many tools in one request; past it the rest of the Apps' tools are left out. */
const MAX_TOOLS = 128;
/** Compiled input schemas kept (a schema compiles once, not at every call). */
const MAX_VALIDATORS = 500;

const failed = (content: string): ToolOutcome => ({ content, ok: false, sources: [] });

/** Whom a call is for: the turn's caller, or (a view's own call) the person and the context of their request. */
export interface ToolCallFor {
  readonly signal: AbortSignal;
  readonly caller?: Caller;
  readonly person?: { readonly userId: string; readonly context: CommandContext };
}

/** The person whose turn it is: an App that signs in each person is reached with their account. */
function personOf(app: ToolApp, turn: ToolCallFor): McpPerson | undefined {
  if (turn.caller) {
    // Tokens refreshed during the call are the person's own writes, not the turn request's (no idempotent replay).
    const { request: _replayed, ...context } = commandContext(turn.caller);
    return { userId: turn.caller.userId, context, appName: app.name };
  }
  if (!turn.person) return undefined;
  const { request: _replayed, ...context } = turn.person.context;
  return { userId: turn.person.userId, context, appName: app.name };
}

@Injectable()
export class McpToolsContextProvider implements ContextProvider {
  readonly name = 'apps';
  readonly share = 0;
  private readonly validators = new Map<string, OutputValidator>();

  constructor(
    private readonly catalog: AgentToolCatalog,
    private readonly servers: McpServers,
    private readonly urlApps: UrlAppClient,
    private readonly listChanged: McpListChanged,
  ) {}

  async contribute(turn: TurnContext): Promise<ContextContribution | null> {
    const offered = (await this.catalog.tools(turn.agent.id)).filter(
      (tool) => tool.enabled && tool.approval !== 'never' && modelMayCall(tool.offer),
    );
    const tools = offered.slice(0, MAX_TOOLS).map((tool) => this.tool(tool));
    return tools.length > 0 ? { system: null, tools } : null;
  }

  private tool({ name, app, offer, approval }: AgentTool): ContextTool {
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
      approval: approval === 'ask' ? 'ask' : 'auto',
      recorded: true,
      run: (args: unknown, turn: TurnContext, session?: ToolCallSession) =>
        this.call(app, offer, args, turn, undefined, session),
    };
  }

  /**
   * One call, checked and made; also how an MCP App view's own calls are made (call-view-tool), which read the MCP
   * result as the view does (`onResult`: `content` and `structuredContent` as JSON). A URL App's tool needs the
   * turn's caller (whom the App is told the call is for).
   */
  async call(
    app: ToolApp,
    offer: McpToolOffer,
    args: unknown,
    turn: ToolCallFor,
    onResult?: (json: string) => void,
    session?: ToolCallSession,
  ): Promise<ToolOutcome> {
    const { signal } = turn;
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
    if (!isMcpApp(app)) {
      const declared = app.meta.tools.find((tool) => tool.name === offer.name)!;
      const { caller } = turn;
      if (!caller) return failed(`${offer.name} is a URL App's tool: it is called in a turn only.`);
      const outcome = await this.urlApps.callTool(app, declared, args as Record<string, unknown>, {
        caller,
        signal,
      });
      return outcome.ok ? { content: outcome.text, ok: true, sources: [] } : failed(outcome.error);
    }
    let connection: Awaited<ReturnType<McpServers['connect']>>;
    try {
      connection = await this.servers.connect(
        app.id,
        app.source,
        personOf(app, turn),
        mcpCallHost(session, () => this.listChanged.changed(app.id)),
      );
    } catch (error) {
      if (error instanceof PlatformError && error.code === 'app_connection_required')
        return {
          ...failed(error.message),
          authRequired: { appId: app.id, connectUrl: appOAuthConnectPath(app.id) },
        };
      if (error instanceof PlatformError) return failed(error.message);
      throw error;
    }
    try {
      const outcome = await connection.callTool(offer.name, args as Record<string, unknown>, {
        signal,
        ...(session ? { onProgress: (progress) => session.progress(progress) } : {}),
      });
      if (!outcome.ok) return failed(outcome.error);
      const result = viewResult(outcome, this.servers.limits.resultMaxBytes);
      onResult?.(result);
      const uri = toolView(offer);
      return {
        content: outcome.text,
        ok: true,
        sources: [],
        ...(uri ? { view: { appId: app.id, uri, result } } : {}),
      };
    } finally {
      await connection.close();
    }
  }

  private validator(app: ToolApp, offer: McpToolOffer): OutputValidator {
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
