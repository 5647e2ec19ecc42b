// The App proxy's forwarding, imported at the first App request (app-proxy.ts admits each request and says where it
// goes): HTTP through undici (bodies streamed both ways, bounded timeouts, one keep-alive pool for every App), and
// websockets relayed with `ws` to the same target as HTTP — the App URL's origin and its path prefix, then the path
// under `/app/{id}` (an App at `http://host/some/prefix` gets its websockets at `/some/prefix/...` too).
// Over 300 lines on purpose: HTTP and websocket forwarding share one admitted request's target, header rules
// and timeouts.
import { validateHeaderValue, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import { Agent, request as send } from 'undici';
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import { PLATFORM_COOKIES } from '#identity';
import { EMBED_SESSION_HEADER } from '#access';

/** Where an admitted request goes, and what it carries there. */
export interface Forward {
  /** The App's origin (`http://host:port`). */
  readonly origin: string;
  /** The App URL's own path, without a trailing slash ('' at the root). */
  readonly prefix: string;
  /** The path and query at the App: the prefix, then what follows `/app/{id}`. */
  readonly path: string;
  /** `/app/{id}`. */
  readonly basePath: string;
  /** A CSP added to the App's answers (the sandbox on the platform's origin), or null. */
  readonly policy: string | null;
  /** The `svc_` headers. */
  readonly headers: Readonly<Record<string, string>>;
}

type Refuse = (reply: FastifyReply, status: number, code: string, message: string) => FastifyReply;

const HOP_BY_HOP = [
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
];
/**
 * Never forwarded to an App: the platform's credentials (every cookie, keys, an embed visitor's session) and Host.
 * The App's cookies are never sent back either: the browser's Cookie header is the platform's origin's.
 */
const PLATFORM_ONLY = ['host', 'cookie', 'authorization', 'x-api-key', EMBED_SESSION_HEADER];

/**
 * Whether a client-sent header could pass for one the proxy sets or a proxy's own: any `svc_` header however spelt
 * (`SVC-Session-Token`: servers that map `-` to `_`, as CGI does, read it as the proxy's), and the forwarding headers
 * (`x-forwarded-*`, `forwarded`), which only a proxy in front of the App may write.
 */
const looksLikeProxyHeader = (name: string): boolean => {
  const normalised = name.toLowerCase().replaceAll('-', '_');
  return normalised.startsWith('svc_') || normalised.startsWith('x_forwarded_') || normalised === 'forwarded';
};

/** The header names the `Connection` header lists (also hop-by-hop). */
const connectionNamed = (headers: IncomingHttpHeaders | Record<string, unknown>): Set<string> =>
  new Set(
    [headers.connection ?? []]
      .flat()
      .join(',')
      .split(',')
      .map((name) => name.trim().toLowerCase())
      .filter(Boolean),
  );

/** The platform's credentials and hop-by-hop headers removed; what the App needs added. */
export function requestHeaders(
  headers: IncomingHttpHeaders,
  added: Readonly<Record<string, string>>,
): Record<string, string | string[]> {
  const named = connectionNamed(headers);
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (
      value === undefined ||
      HOP_BY_HOP.includes(name) ||
      named.has(name) ||
      PLATFORM_ONLY.includes(name) ||
      looksLikeProxyHeader(name)
    )
      continue;
    out[name] = value;
  }
  return { ...out, ...added };
}

/**
 * A cookie name as some reader of it could take it: spaces trimmed (browsers do), percent-decoding undone (until it
 * no longer changes: servers that decode names), the `__Host-`/`__Secure-` prefixes stripped, case folded.
 */
function cookieNameReadings(name: string): string {
  let reading = name.trim();
  for (;;) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(reading).trim();
    } catch {
      break;
    }
    if (decoded === reading) break;
    reading = decoded;
  }
  return reading.toLowerCase().replace(/^(?:__host-|__secure-)+/, '');
}

/**
 * An App's `Set-Cookie` as the browser gets it, or null when it is dropped. Its `Path` becomes `{basePath}/` and its
 * `Domain` goes, so the cookie stays under the path this App was reached at (it cannot shadow a platform cookie, nor
 * another App's, elsewhere on the origin); a cookie without a name, or whose name could be read as a platform
 * cookie's (`ap_session`, `ap_oidc`, …: see cookieNameReadings), is dropped: under the App's path it would shadow the
 * platform's.
 */
export function appSetCookie(line: string, basePath: string): string | null {
  const [pair = '', ...attributes] = line.split(';');
  const equals = pair.indexOf('=');
  if (equals === -1) return null;
  const name = cookieNameReadings(pair.slice(0, equals));
  if (name === '' || PLATFORM_COOKIES.some((platform) => name === platform.toLowerCase())) return null;
  const kept = attributes.filter((attribute) => {
    const key = attribute.split('=', 1)[0]!.trim().toLowerCase();
    return key !== 'path' && key !== 'domain';
  });
  return [pair.trim(), ...kept.map((attribute) => attribute.trim()), `Path=${basePath}/`].join('; ');
}

const validValue = (name: string, value: string): boolean => {
  try {
    validateHeaderValue(name, value);
    return true;
  } catch {
    return false;
  }
};

/**
 * The App's answer headers as the person gets them: hop-by-hop ones removed, its cookies scoped to its path (never a
 * platform cookie), the sandbox CSP on the platform's origin, and a redirect kept under `/app/{id}`; null when the
 * App redirects outside itself (refused).
 */
export function responseHeaders(
  headers: Record<string, string | string[] | undefined>,
  forward: Forward,
): Record<string, string | string[]> | null {
  const named = connectionNamed(headers);
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.includes(name) || named.has(name)) continue;
    const values = [value].flat().filter((one) => validValue(name, one));
    if (values.length > 0) out[name] = Array.isArray(value) ? values : values[0]!;
  }
  if (out['set-cookie'] !== undefined) {
    const kept = [out['set-cookie']]
      .flat()
      .map((cookie) => appSetCookie(cookie, forward.basePath))
      .filter((cookie) => cookie !== null);
    if (kept.length > 0) out['set-cookie'] = kept;
    else delete out['set-cookie'];
  }
  if (forward.policy !== null)
    out['content-security-policy'] = [[out['content-security-policy'] ?? []].flat(), forward.policy].flat();
  if (out.location !== undefined) {
    const location = appRedirect([out.location].flat()[0]!, forward);
    if (location === null) return null;
    out.location = location;
  }
  return out;
}

/**
 * Where an App's redirect sends the person, under `/app/{id}`: the Location read as the browser would (relative to
 * the App's own URL of this request, backslashes as slashes), and kept only when it lands on the App itself (its
 * origin, under its URL's prefix). Anything else, another origin, `//host`, a climb out of the prefix, a scheme like
 * `javascript:`, is null: the proxy refuses it (502 `app_redirect_refused`), so the platform's origin never redirects
 * elsewhere for an App.
 */
export function appRedirect(location: string, forward: Forward): string | null {
  let target: URL;
  try {
    target = new URL(location, `${forward.origin}${forward.path}`);
  } catch {
    return null;
  }
  if (target.origin !== forward.origin) return null;
  const rest = target.pathname.slice(forward.prefix.length);
  if (!target.pathname.startsWith(forward.prefix) || !/^(?:\/|$)/.test(rest)) return null;
  return `${forward.basePath}${rest || '/'}${target.search}${target.hash}`;
}

/** A close code `ws` accepts for sending (1004–1006 are reserved, others become application codes). */
function closeCode(code: unknown): number {
  if (typeof code !== 'number' || code < 1000 || code > 4999) return 1011;
  if (code === 1004 || code === 1005 || code === 1006 || code === 1015) return 1011;
  return code;
}

/** Messages, pings and closes relayed both ways; messages sent before the App answers wait for it. */
function relay(client: WebSocket, target: WebSocket): void {
  const waiting: [RawData, boolean][] = [];
  let closed = false;
  const close = (code?: unknown, reason?: Buffer | string) => {
    if (closed) return;
    closed = true;
    waiting.length = 0;
    const why = String(reason ?? '').slice(0, 120);
    for (const socket of [client, target]) {
      if (socket.readyState === WebSocket.OPEN) socket.close(closeCode(code), why);
      else if (socket.readyState === WebSocket.CONNECTING) socket.terminate();
    }
  };
  client.on('message', (data, binary) => {
    if (target.readyState === WebSocket.OPEN) target.send(data, { binary });
    else if (target.readyState === WebSocket.CONNECTING) waiting.push([data, binary]);
  });
  target.on('open', () => {
    for (const [data, binary] of waiting.splice(0)) target.send(data, { binary });
  });
  target.on('message', (data, binary) => {
    if (client.readyState === WebSocket.OPEN) client.send(data, { binary });
  });
  client.on('ping', (data) => target.readyState === WebSocket.OPEN && target.ping(data));
  target.on('ping', (data) => client.readyState === WebSocket.OPEN && client.ping(data));
  client.on('close', (code, reason) => close(code, reason));
  target.on('close', (code, reason) => close(code, reason));
  client.on('error', () => close(1011));
  target.on('error', () => close(1011, 'the App could not be reached'));
  target.on('unexpected-response', (_request, response) => {
    response.resume();
    close(1011, `the App answered ${response.statusCode}`);
  });
}

export class AppForwarder {
  private readonly agent: Agent;
  private readonly sockets = new WebSocketServer({ noServer: true });
  private readonly clients = new Set<WebSocket>();

  constructor(private readonly options: { readonly timeoutMs: number; readonly logger: FastifyBaseLogger }) {
    this.agent = new Agent({
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
      connect: { timeout: options.timeoutMs },
    });
    this.sockets.on('error', (error) => options.logger.warn({ err: error }, 'App websocket server error'));
  }

  /** An HTTP request to the App, its answer streamed back; a failure before the answer is a 502 or 504. */
  async forward(
    request: FastifyRequest,
    reply: FastifyReply,
    forward: Forward,
    refuse: Refuse,
  ): Promise<FastifyReply> {
    const raw = request.raw;
    const length = raw.headers['content-length'];
    const hasBody =
      raw.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
    let answer: Awaited<ReturnType<typeof send>>;
    try {
      answer = await send(`${forward.origin}${forward.path}`, {
        method: request.method as 'GET',
        headers: requestHeaders(raw.headers, forward.headers),
        body: hasBody ? raw : null,
        dispatcher: this.agent,
      });
    } catch (error) {
      const { code, message } = error as { code?: string; message?: string };
      const timeout = /timeout/i.test(`${code ?? ''} ${message ?? ''}`);
      return refuse(
        reply,
        timeout ? 504 : 502,
        timeout ? 'app_timeout' : 'app_unreachable',
        timeout ? 'the App did not answer in time' : 'the App could not be reached',
      );
    }
    const headers = responseHeaders(answer.headers, forward);
    if (headers === null) {
      await answer.body.dump();
      return refuse(reply, 502, 'app_redirect_refused', 'the App redirected outside itself');
    }
    reply.status(answer.statusCode).headers(headers);
    if (request.method === 'HEAD' || answer.statusCode === 204 || answer.statusCode === 304) {
      await answer.body.dump();
      return reply.send();
    }
    return reply.send(answer.body);
  }

  /** A websocket upgrade accepted, and relayed to the App (the same target as HTTP, with the `svc_` headers). */
  upgrade(request: IncomingMessage, socket: Duplex, head: Buffer, forward: Forward): void {
    this.sockets.handleUpgrade(request, socket, head, (client) => {
      this.clients.add(client);
      client.on('close', () => this.clients.delete(client));
      let target: WebSocket;
      try {
        target = new WebSocket(
          `${forward.origin.replace(/^http/, 'ws')}${forward.path}`,
          client.protocol ? [client.protocol] : [],
          { headers: { ...forward.headers }, handshakeTimeout: this.options.timeoutMs },
        );
      } catch {
        client.close(1011, 'the App could not be reached');
        return;
      }
      relay(client, target);
    });
  }

  /** The open websockets closed (going away), the pool's connections ended. */
  close(): void {
    for (const client of this.clients) client.close(1001, 'the platform is shutting down');
    this.sockets.close();
    void this.agent.close().catch(() => undefined);
  }
}
