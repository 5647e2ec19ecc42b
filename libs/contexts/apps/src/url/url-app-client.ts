// The platform's calls to a URL (or container) App beyond its views: a tool its `/meta` declares, POSTed to the App
// with the arguments as the JSON body, and a document it declares, read with GET. They follow the App proxy's rules
// for what reaches an App — nothing of the platform's credentials, the `svc_` headers the proxy adds — and the MCP
// client's bounds: the outbound address guard, MCP_CALL_TIMEOUT_SECONDS, an answer's bytes limited, what a model reads
// cut at MCP_RESULT_MAX_KB, no redirect followed.
//
// Who the App is told the turn is for: a person signed in with a session gets `svc_session_token` (this App, this
// person, this session, as the proxy issues it; usable as the bridge's bearer while the session lives). A turn under
// an API key has no session a token could end with, and minting a bearer that outlives nothing would hand the App more
// than the key's narrowed grants; so it gets no token, only `svc_user_id` naming the key's person (the App calls the
// bridge with its own App token if it must). Any other turn (an embed visitor's) names nobody.
import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import type { Caller } from '#access';
import { PLATFORM_CONFIG, type PlatformConfig } from '#kernel';
import { AppSessionTokens } from '../app-session-token.js';
import type { AppMetaDocument, AppMetaTool } from '../app.events.js';
import type { AppView } from '../apps.read-model.js';
import { capUtf8, mcpResultText } from '../mcp/mcp-content.js';
import { guardedFetch, type GuardedFetch } from '../mcp/mcp-fetch.js';
import { OutboundAddressRefused, outboundAgent } from '../mcp/outbound-address.js';
import { AppProxyRoutes } from '../proxy/app-proxy.routes.js';

export type UrlToolOutcome =
  { readonly ok: true; readonly text: string } | { readonly ok: false; readonly error: string };

export type UrlDocumentRead =
  { readonly text: string; readonly mimeType: string } | 'gone' | { readonly error: string };

/** Types a declared document may have: the text Knowledge ingests as it is. */
const DOCUMENT_TYPES = ['text/markdown', 'text/plain'];

/** What a model reads of an App's answer: `{ content, isError? }` as MCP content, any other JSON or text as text. */
export function urlToolResult(status: number, body: string, maxBytes: number): UrlToolOutcome {
  if (status < 200 || status > 299) {
    const said = capUtf8(body.trim(), 500).text;
    return { ok: false, error: `The App answered ${status}${said ? `: ${said}` : ''}` };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return { ok: true, text: mcpResultText({ content: [{ type: 'text', text: body }] }, maxBytes).text };
  }
  const shaped = parsed as { content?: unknown; isError?: unknown } | null;
  const content = typeof shaped === 'object' && shaped !== null ? shaped.content : undefined;
  const blocks =
    typeof content === 'string'
      ? [{ type: 'text', text: content }]
      : Array.isArray(content)
        ? content
        : [{ type: 'text', text: typeof parsed === 'string' ? parsed : JSON.stringify(parsed) }];
  const { text } = mcpResultText({ content: blocks }, maxBytes);
  return shaped?.isError === true && content !== undefined ? { ok: false, error: text } : { ok: true, text };
}

function unreachable(error: unknown): string {
  const name = (error as Error).name;
  if (name === 'TimeoutError') return 'The App did not answer in time';
  if (name === 'AbortError') return 'The call was stopped';
  if (error instanceof OutboundAddressRefused) return error.message;
  const cause =
    (error as Error).cause instanceof Error ? `: ${((error as Error).cause as Error).message}` : '';
  return `The App could not be reached: ${(error as Error).message}${cause}`.slice(0, 500);
}

@Injectable()
export class UrlAppClient implements OnModuleDestroy {
  private readonly limits: PlatformConfig['apps']['mcp'];
  // Opened at the first call to an App: an api whose Apps are never called never loads undici.
  private agent: ReturnType<typeof outboundAgent> | undefined;
  private readonly guarded: () => GuardedFetch;

  constructor(
    @Inject(PLATFORM_CONFIG) config: PlatformConfig,
    private readonly tokens: AppSessionTokens,
    private readonly proxy: AppProxyRoutes,
  ) {
    this.limits = config.apps.mcp;
    // One guard per request: its overflow flag is that answer's.
    this.guarded = () =>
      guardedFetch((this.agent ??= outboundAgent(this.limits.allowLinkLocal)), this.limits);
  }

  async onModuleDestroy(): Promise<void> {
    await this.agent?.close();
  }

  /** Calls the tool with arguments already checked against its schema; never throws. */
  async callTool(
    app: AppView,
    tool: AppMetaTool,
    args: Record<string, unknown>,
    turn: { readonly caller: Caller; readonly signal: AbortSignal },
  ): Promise<UrlToolOutcome> {
    if (!app.upstreamUrl) return { ok: false, error: app.lastError ?? 'The App is not running' };
    try {
      const response = await this.guarded().fetch(this.url(app, tool.path ?? `/tools/${tool.name}`), {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/plain;q=0.9, */*;q=0.1',
          ...(await this.svcHeaders(app, turn.caller)),
        },
        body: JSON.stringify(args),
        signal: AbortSignal.any([turn.signal, AbortSignal.timeout(this.limits.callTimeoutMs)]),
      });
      return urlToolResult(response.status, await response.text(), this.limits.resultMaxBytes);
    } catch (error) {
      return { ok: false, error: unreachable(error) };
    }
  }

  /** Reads a declared document: its text, `gone` (404 or 410), or why it could not be read. */
  async readDocument(
    app: Pick<AppView, 'id' | 'upstreamUrl' | 'lastError'>,
    document: AppMetaDocument,
  ): Promise<UrlDocumentRead> {
    if (!app.upstreamUrl) return { error: app.lastError ?? 'the App is not running' };
    try {
      const response = await this.guarded().fetch(this.url(app, document.path), {
        headers: {
          accept: 'text/markdown, text/plain;q=0.9',
          ...(await this.svcHeaders(app, null)),
        },
        signal: AbortSignal.timeout(this.limits.callTimeoutMs),
      });
      const body = await response.text();
      if (response.status === 404 || response.status === 410) return 'gone';
      if (!response.ok) return { error: `the App answered ${response.status} for ${document.path}` };
      const mimeType = (response.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
      if (!DOCUMENT_TYPES.includes(mimeType))
        return { error: `${document.path} is ${mimeType || 'untyped'}, not text/markdown or text/plain` };
      return { text: body, mimeType };
    } catch (error) {
      return { error: unreachable(error) };
    }
  }

  /** The App URL's origin and path prefix, then the declared path (as the proxy reaches it). */
  private url(app: Pick<AppView, 'upstreamUrl'>, path: string): string {
    const upstream = new URL(app.upstreamUrl!);
    return `${upstream.origin}${upstream.pathname.replace(/\/+$/, '')}${path}`;
  }

  private async svcHeaders(app: Pick<AppView, 'id'>, caller: Caller | null): Promise<Record<string, string>> {
    const headers: Record<string, string> = {
      svc_server_url: this.proxy.serverUrl(),
      svc_base_path: `/app/${app.id}`,
    };
    if (!caller || caller.app || caller.visitor || caller.platform) return headers;
    if (caller.session)
      return {
        ...headers,
        svc_session_token: await this.tokens.issue(app.id, caller.userId, caller.session.id),
      };
    return { ...headers, svc_user_id: caller.userId };
  }
}
