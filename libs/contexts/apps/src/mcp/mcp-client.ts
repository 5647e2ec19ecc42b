// The platform's one MCP client (the api's MCP Apps and `cli mcp connect` alike): the SDK's Client over streamable
// HTTP (the older HTTP+SSE transport when a server answers the first POST with 400, 404 or 405), through the outbound
// guard. `McpConnection.open` initializes and reads what the server offers (every page of its tools, its resources and prompts);
// `callTool` answers text for a model or a tool error — a server's `isError`, a protocol error, a timeout, an abort —
// and never throws. Nothing here ever names the bearer token: it is a header and stays one. What the server asks
// during a call (sampling, questions, log lines, list changes) goes to the call's host (mcp-session.ts); a watching
// connection subscribes to resources and hears their updates (mcp-resource-watcher.ts).
// Over 300 lines on purpose: one connection's whole protocol surface (open, offer, calls, resources, subscriptions) with its limits.
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Agent } from 'undici';
import { mcpResultText } from './mcp-content.js';
import { guardedFetch, type GuardedFetch } from './mcp-fetch.js';
import { checkOutboundUrl, outboundAgent } from './outbound-address.js';
import type { McpOffer, McpToolOffer } from './mcp-offer.js';
import { toolUi } from './mcp-app-view.js';
import {
  CallClock,
  CLIENT_CAPABILITIES,
  installSessionHandlers,
  type McpSessionHost,
  type McpSessionState,
} from './mcp-session.js';

export interface McpClientLimits {
  readonly connectTimeoutMs: number;
  readonly callTimeoutMs: number;
  readonly resultMaxBytes: number;
  readonly allowLinkLocal: boolean;
}

export interface McpTarget {
  readonly url: string;
  readonly bearer?: string;
  /** OAuth 2.1 (mcp-oauth-session.ts): the SDK sends its access token, refreshes it on a 401, or asks to authorize. */
  readonly oauth?: OAuthClientProvider;
}

export interface McpProgress {
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
}

export interface McpCallOptions {
  readonly signal?: AbortSignal;
  readonly onProgress?: (progress: McpProgress) => void;
  readonly timeoutMs?: number;
}

export type McpToolOutcome =
  | { readonly ok: true; readonly text: string; readonly structured?: unknown; readonly truncated: boolean }
  | { readonly ok: false; readonly error: string };

/** The server could not be reached, or does not speak MCP: `reason` is safe to show (no secret in it). */
export class McpUnreachable extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'McpUnreachable';
  }
}

/** The SDK, loaded on first use: it brings ajv and its schemas, which an api start without MCP Apps never needs. */
let sdk:
  | Promise<{
      Client: typeof import('@modelcontextprotocol/sdk/client/index.js').Client;
      SSEClientTransport: typeof import('@modelcontextprotocol/sdk/client/sse.js').SSEClientTransport;
      StreamableHTTPClientTransport: typeof import('@modelcontextprotocol/sdk/client/streamableHttp.js').StreamableHTTPClientTransport;
    }>
  | undefined;
const loadSdk = () =>
  (sdk ??= Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/sse.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
  ]).then(([client, sse, http]) => ({
    Client: client.Client,
    SSEClientTransport: sse.SSEClientTransport,
    StreamableHTTPClientTransport: http.StreamableHTTPClientTransport,
  })));

const CLIENT_INFO = { name: 'agent-platform', version: '1.0.0' };
const MAX_PAGES = 50;
/** Items of one list recorded at most: what a server offers is recorded in an event, which must stay small. */
const MAX_ITEMS = 1000;

/** An error's message, short, with the bearer token (were a server to echo it) blanked. */
function describe(error: unknown, bearer?: string): string {
  const message = error instanceof Error ? error.message : String(error);
  const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
  const status = httpStatus(error);
  const text = `${message}${cause}${status && !message.includes(String(status)) ? ` (HTTP ${status})` : ''}`;
  return bearer ? text.slice(0, 300).split(bearer).join('[redacted]') : text.slice(0, 300);
}

/** The HTTP status the SDK's transport errors carry as their code (a JSON-RPC error's code is negative). */
function httpStatus(error: unknown): number | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'number' && code >= 100 && code <= 599 ? code : undefined;
}

/** The SDK's own bound of a call: the call's timeout is its clock's (which stands still while the person is asked). */
const CALL_CEILING_MS = 24 * 3_600_000;

/** MCP's error code for a resource the server does not have. */
const RESOURCE_NOT_FOUND = -32002;

export class McpConnection {
  private constructor(
    private readonly client: Client,
    private readonly agent: Agent,
    private readonly limits: McpClientLimits,
    private readonly bearer: string | undefined,
    private readonly outbound: GuardedFetch,
    private readonly session: McpSessionState,
  ) {
    // An answer past the byte limit ends the connection: the SDK would otherwise wait for it until the timeout.
    outbound.onOverflow(() => void this.client.close().catch(() => undefined));
  }

  /**
   * Connects and initializes; McpUnreachable when the server is refused, unreachable or speaks no MCP. `host` serves
   * what the server asks during calls (mcp-session.ts).
   */
  static async open(
    target: McpTarget,
    limits: McpClientLimits,
    host?: McpSessionHost,
  ): Promise<McpConnection> {
    let url: URL;
    try {
      url = new URL(target.url);
    } catch {
      throw new McpUnreachable('the URL is not valid');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new McpUnreachable('the URL is not http(s)');
    try {
      checkOutboundUrl(url, limits.allowLinkLocal);
    } catch (error) {
      throw new McpUnreachable((error as Error).message);
    }
    const { Client, SSEClientTransport, StreamableHTTPClientTransport } = await loadSdk();
    const agent = outboundAgent(limits.allowLinkLocal);
    const outbound = guardedFetch(agent, limits);
    const fetchFn = outbound.fetch;
    const requestInit: RequestInit = target.bearer
      ? { headers: { authorization: `Bearer ${target.bearer}` } }
      : {};
    const session: McpSessionState = { host, calling: false };
    const attempt = async (transport: Transport): Promise<Client> => {
      const client = new Client(CLIENT_INFO, { capabilities: CLIENT_CAPABILITIES });
      await installSessionHandlers(client, session);
      await client.connect(transport, { timeout: limits.connectTimeoutMs });
      return client;
    };
    try {
      const client = await attempt(
        new StreamableHTTPClientTransport(url, {
          fetch: fetchFn,
          requestInit,
          redirectPolicy: 'same-origin',
          ...(target.oauth ? { authProvider: target.oauth } : {}),
        }),
      ).catch(async (error: unknown) => {
        // A server of the older HTTP+SSE transport refuses the streamable POST (400, 404 or 405); a 401 or 403 is
        // an answer about the credentials, not the transport.
        if (![400, 404, 405].includes(httpStatus(error) ?? 0)) throw error;
        return attempt(
          new SSEClientTransport(url, {
            fetch: fetchFn,
            requestInit,
            ...(target.oauth ? { authProvider: target.oauth } : {}),
          }),
        );
      });
      return new McpConnection(client, agent, limits, target.bearer, outbound, session);
    } catch (error) {
      await agent.close().catch(() => undefined);
      throw new McpUnreachable(`the MCP server could not be initialized: ${describe(error, target.bearer)}`);
    }
  }

  /** The server's name and version, and every tool (all pages), resource and prompt it offers. */
  async offer(): Promise<McpOffer> {
    const options = { timeout: this.limits.connectTimeoutMs };
    const capabilities = this.client.getServerCapabilities() ?? {};
    const info = this.client.getServerVersion();
    try {
      // Only what the server declares is listed: a server of resources alone answers tools/list "method not found".
      const tools = capabilities.tools
        ? await this.pages(async (cursor) => {
            const page = await this.client.listTools(cursor ? { cursor } : {}, options);
            return { items: page.tools, next: page.nextCursor };
          })
        : [];
      const resources = capabilities.resources
        ? await this.pages(async (cursor) => {
            const page = await this.client.listResources(cursor ? { cursor } : {}, options);
            return { items: page.resources, next: page.nextCursor };
          })
        : [];
      const prompts = capabilities.prompts
        ? await this.pages(async (cursor) => {
            const page = await this.client.listPrompts(cursor ? { cursor } : {}, options);
            return { items: page.prompts, next: page.nextCursor };
          })
        : [];
      return {
        server: { name: info?.name ?? 'unnamed', version: info?.version ?? '' },
        tools: tools.map(toolOffer),
        resources: resources.map((r) => ({
          uri: r.uri,
          name: r.name,
          ...(r.description ? { description: r.description.slice(0, 2000) } : {}),
          ...(r.mimeType ? { mimeType: r.mimeType } : {}),
        })),
        prompts: prompts.map((p) => ({
          name: p.name,
          ...(p.description ? { description: p.description.slice(0, 2000) } : {}),
        })),
      };
    } catch (error) {
      throw new McpUnreachable(`the MCP server's lists could not be read: ${describe(error, this.bearer)}`);
    }
  }

  private async pages<T>(read: (cursor?: string) => Promise<{ items: T[]; next?: string }>): Promise<T[]> {
    const all: T[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page += 1) {
      const { items, next } = await read(cursor);
      all.push(...items);
      if (!next || next === cursor || all.length >= MAX_ITEMS) break;
      cursor = next;
    }
    return all.slice(0, MAX_ITEMS);
  }

  /** Calls a tool: the text a model reads, or a tool error; never throws. */
  async callTool(
    name: string,
    args: Record<string, unknown>,
    options: McpCallOptions = {},
  ): Promise<McpToolOutcome> {
    const { onProgress } = options;
    const timeoutMs = options.timeoutMs ?? this.limits.callTimeoutMs;
    const clock = new CallClock(timeoutMs);
    Object.assign(this.session, { clock, calling: true });
    try {
      const result = await this.client.callTool({ name, arguments: args }, undefined, {
        timeout: CALL_CEILING_MS,
        maxTotalTimeout: CALL_CEILING_MS,
        signal: options.signal ? AbortSignal.any([options.signal, clock.signal]) : clock.signal,
        ...(onProgress
          ? {
              onprogress: ({ progress, total, message }) =>
                onProgress({
                  progress,
                  ...(total !== undefined ? { total } : {}),
                  ...(message !== undefined ? { message } : {}),
                }),
            }
          : {}),
      });
      const { text, truncated } = mcpResultText(
        result as { content?: unknown[]; structuredContent?: unknown },
        this.limits.resultMaxBytes,
      );
      if (result.isError) return { ok: false, error: text || `the tool ${name} failed` };
      return {
        ok: true,
        text,
        truncated,
        ...(result.structuredContent !== undefined ? { structured: result.structuredContent } : {}),
      };
    } catch (error) {
      if (clock.expired)
        return { ok: false, error: `the call of ${name} timed out after ${Math.ceil(timeoutMs / 1000)} s` };
      if (options.signal?.aborted) return { ok: false, error: `the call of ${name} was cancelled` };
      if (this.outbound.overflowed())
        return { ok: false, error: `the answer of ${name} is larger than ${this.outbound.maxBytes} bytes` };
      return { ok: false, error: `the call of ${name} failed: ${describe(error, this.bearer)}` };
    } finally {
      clock.stop();
      Object.assign(this.session, { clock: undefined, calling: false });
    }
  }

  /**
   * A resource's text (a text resource, or a blob of a text type decoded as UTF-8), what Knowledge ingests; `gone`
   * when the server answers that it has no such resource (MCP's -32002); McpUnreachable for any other failure.
   */
  async readResource(
    uri: string,
  ): Promise<{ text: string; mimeType: string | null; meta?: Record<string, unknown> } | 'gone'> {
    let contents: readonly { text?: unknown; blob?: unknown; mimeType?: unknown; _meta?: unknown }[];
    try {
      ({ contents } = await this.client.readResource(
        { uri },
        { timeout: this.limits.callTimeoutMs, maxTotalTimeout: this.limits.callTimeoutMs },
      ));
    } catch (error) {
      if ((error as { code?: unknown } | null)?.code === RESOURCE_NOT_FOUND) return 'gone';
      throw new McpUnreachable(`the resource could not be read: ${describe(error, this.bearer)}`);
    }
    const first = contents[0];
    if (!first) return 'gone';
    const mimeType = typeof first.mimeType === 'string' ? first.mimeType : null;
    const meta =
      typeof first._meta === 'object' && first._meta !== null
        ? { meta: first._meta as Record<string, unknown> }
        : {};
    if (typeof first.text === 'string') return { text: first.text, mimeType, ...meta };
    if (typeof first.blob === 'string' && /^(text\/|application\/(json|xml|yaml))/.test(mimeType ?? ''))
      return { text: Buffer.from(first.blob, 'base64').toString('utf8'), mimeType };
    throw new McpUnreachable(
      `the resource is not text (${mimeType ?? 'no type'}): only text resources are synced`,
    );
  }

  /** Whether the server lets a client subscribe to its resources' updates (`resources.subscribe`). */
  get subscribable(): boolean {
    return this.client.getServerCapabilities()?.resources?.subscribe === true;
  }

  /**
   * Hands the server's `notifications/resources/updated` (the resource's URI) and `notifications/resources/list_changed`
   * (null) to `changed`, and any failure of the connection (its stream lost, a closed transport) to `troubled`.
   */
  async watchResources(changed: (uri: string | null) => void, troubled: (reason: string) => void) {
    const types = await import('@modelcontextprotocol/sdk/types.js');
    this.client.setNotificationHandler(types.ResourceUpdatedNotificationSchema, ({ params }) =>
      changed(params.uri),
    );
    this.client.setNotificationHandler(types.ResourceListChangedNotificationSchema, () => changed(null));
    this.client.onerror = (error) => troubled(describe(error, this.bearer));
    this.client.onclose = () => troubled('the connection closed');
  }

  /** `resources/subscribe` (or `unsubscribe`); McpUnreachable when the server refuses or cannot be reached. */
  async subscription(uri: string, on: boolean): Promise<void> {
    const options = { timeout: this.limits.connectTimeoutMs };
    try {
      if (on) await this.client.subscribeResource({ uri }, options);
      else await this.client.unsubscribeResource({ uri }, options);
    } catch (error) {
      throw new McpUnreachable(`the subscription could not be changed: ${describe(error, this.bearer)}`);
    }
  }

  /** Whether the server still answers on this connection (its session included). */
  async alive(): Promise<boolean> {
    return this.client.ping({ timeout: this.limits.connectTimeoutMs }).then(
      () => true,
      () => false,
    );
  }

  async close(): Promise<void> {
    this.client.onclose = undefined;
    this.client.onerror = undefined;
    await this.client.close().catch(() => undefined);
    await this.agent.close().catch(() => undefined);
  }
}

function toolOffer(tool: {
  name: string;
  title?: string;
  description?: string;
  inputSchema: unknown;
  annotations?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
}): McpToolOffer {
  const ui = toolUi(tool._meta);
  return {
    name: tool.name,
    ...(tool.title ? { title: tool.title } : {}),
    description: (tool.description ?? '').slice(0, 4000),
    inputSchema: tool.inputSchema as Record<string, unknown>,
    ...(tool.annotations ? { annotations: tool.annotations } : {}),
    ...(ui ? { ui } : {}),
  };
}

/** Connects, reads the offer and closes: what registration and refresh record. */
export async function inspectMcpServer(target: McpTarget, limits: McpClientLimits): Promise<McpOffer> {
  const connection = await McpConnection.open(target, limits);
  try {
    return await connection.offer();
  } finally {
    await connection.close();
  }
}
