// The App proxy: `/app/{id}/...` forwarded to the App (its URL, or its container's address) through
// @fastify/http-proxy (streaming both ways, bounded timeouts). Apps rule 5: only `/admin`, `/user`, `/knowledge` and
// `/standalone` (and below) need a platform session, 401 without one; every other path (the App's own API, OAuth
// callbacks, webhooks) is forwarded without one. Rule 6: each request carries `svc_session_token` (for a signed-in
// person: short-lived, scoped to this App and person, usable as the bridge's bearer), `svc_server_url` and
// `svc_base_path`. Nothing of the platform's credentials reaches the App: its session cookie, API keys and
// Authorization are stripped, as are hop-by-hop headers, and a `set-cookie` for the platform's session is dropped.
// A standalone App (`standalone: true` in its /meta) is served full-page at `/app/{id}`. Isolation: served on the
// platform's origin, every App response carries a CSP `sandbox` without `allow-same-origin` (an opaque origin: no
// access to the platform's cookies or storage); on the separate App origin (APP_ORIGIN) it is its own origin.
import httpProxy from '@fastify/http-proxy';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { IncomingHttpHeaders } from 'node:http';
import { errorBody } from '#http';
import type { ReadStore } from '#read-store';
import { APPS, type AppView } from '../apps.read-model.js';
import type { AppSessionTokens } from '../app-session-token.js';

const SESSION_PATHS = /^\/(admin|user|knowledge|standalone)(\/|$)/;
const HOP_BY_HOP = [
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
];
const PLATFORM_CREDENTIALS = [
  'cookie',
  'authorization',
  'x-api-key',
  'svc_session_token',
  'svc_server_url',
  'svc_base_path',
];
const SESSION_COOKIE = 'ap_session';

export interface AppProxyOptions {
  readonly readStore: ReadStore;
  readonly tokens: AppSessionTokens;
  /** The signed-in person of a request (its session cookie), or null. */
  readonly sessionUser: (
    request: FastifyRequest,
  ) => Promise<{ readonly userId: string; readonly sessionId: string } | null>;
  /** Where the platform is reached (`svc_server_url`): PUBLIC_URL, or (null) the origin the request came to. */
  readonly serverUrl: string | null;
  /** How long the App may take to answer headers, and between body chunks. */
  readonly timeoutMs: number;
  /** The separate origin Apps are served on (APP_ORIGIN); null when none is configured. */
  readonly appOrigin: string | null;
}

/**
 * Served on the platform's origin (not APP_ORIGIN), an App's document runs in a sandbox without `allow-same-origin`:
 * an opaque origin, so its scripts cannot read the platform's cookies or storage (nor call its API as the person).
 */
export const APP_SANDBOX = 'sandbox allow-scripts allow-forms allow-popups allow-modals allow-downloads';

const onAppOrigin = (request: FastifyRequest, appOrigin: string | null): boolean =>
  appOrigin !== null && `${request.protocol}://${request.host}` === appOrigin;

interface Forward {
  readonly upstream: string;
  readonly path: string;
  readonly headers: Record<string, string>;
}

const forwards = new WeakMap<FastifyRequest, Forward>();

/** `/app/{id}/rest?query` → the App's id and the rest (`/rest?query`, `/` when none). */
function split(url: string): { appId: string; rest: string } | null {
  const match = /^\/app\/([A-Za-z0-9_-]{1,100})(\/[^?#]*)?(\?.*)?$/.exec(url);
  if (!match) return null;
  return { appId: match[1]!, rest: `${match[2] ?? '/'}${match[3] ?? ''}` };
}

/** The platform's credentials and hop-by-hop headers removed; what the App needs added. */
function forwardedHeaders(headers: IncomingHttpHeaders, added: Record<string, string>): IncomingHttpHeaders {
  const out: IncomingHttpHeaders = {};
  const named = new Set(
    String(headers.connection ?? '')
      .split(',')
      .map((name) => name.trim().toLowerCase())
      .filter(Boolean),
  );
  for (const [name, value] of Object.entries(headers)) {
    if (HOP_BY_HOP.includes(name) || named.has(name) || PLATFORM_CREDENTIALS.includes(name)) continue;
    out[name] = value;
  }
  return { ...out, ...added };
}

const isSessionCookie = (cookie: unknown): boolean =>
  String(cookie).trimStart().startsWith(`${SESSION_COOKIE}=`);

/** `svc_server_url`: the configured one, else the origin the request reached (a Host of host[:port] only). */
function serverUrlOf(request: FastifyRequest, options: AppProxyOptions): string {
  if (options.serverUrl) return options.serverUrl;
  const host = /^[A-Za-z0-9.-]{1,253}(:\d{1,5})?$|^\[[0-9A-Fa-f:.]{2,45}\](:\d{1,5})?$/.test(request.host)
    ? request.host
    : '127.0.0.1';
  return `${request.protocol}://${host}`;
}

export async function registerAppProxy(fastify: FastifyInstance, options: AppProxyOptions): Promise<void> {
  const apps = options.readStore.reader<AppView>(APPS);
  const refuse = (reply: FastifyReply, status: number, code: string, message: string) =>
    reply
      .status(status)
      .header('content-type', 'application/json; charset=utf-8')
      .send(errorBody(status, code, message));

  /** Admits a request to the App: its session rule, its headers (kept for the forwarding); or refuses it. */
  const admit = async (request: FastifyRequest, reply: FastifyReply) => {
    const target = split(request.url);
    if (!target) return refuse(reply, 404, 'app_not_found', 'no App is served at this path');
    const app = await apps.get(target.appId);
    if (!app) return refuse(reply, 404, 'app_not_found', `App '${target.appId}' was not found`);
    // A standalone App is its own full page at /app/{id} (its /standalone view, under the same session rule).
    const rest =
      app.meta?.standalone && /^\/(\?|$)/.test(target.rest)
        ? target.rest.replace(/^\//, '/standalone')
        : target.rest;
    const user = await options.sessionUser(request);
    if (SESSION_PATHS.test(rest.split('?', 1)[0]!) && !user)
      return refuse(reply, 401, 'session_required', 'this part of the App needs a platform session: sign in');
    if (!app.upstreamUrl)
      return refuse(reply, 502, 'app_unavailable', app.lastError ?? 'the App is not running');
    const basePath = `/app/${app.id}`;
    const upstream = new URL(app.upstreamUrl);
    forwards.set(request, {
      upstream: upstream.origin,
      path: `${upstream.pathname.replace(/\/+$/, '')}${rest}`,
      headers: {
        svc_server_url: serverUrlOf(request, options),
        svc_base_path: basePath,
        ...(user
          ? { svc_session_token: await options.tokens.issue(app.id, user.userId, user.sessionId) }
          : {}),
      },
    });
    return undefined;
  };

  await fastify.register(httpProxy, {
    // `/app/{id}` and below; the plugin strips the prefix (the App sees its own paths).
    prefix: '/app/:appId',
    rewritePrefix: '',
    upstream: '',
    websocket: true,
    // A websocket upgrade is forwarded with the same headers an HTTP request gets (no cookie: the plugin's default
    // would copy it), to the App's origin and the same path (an App URL's own path prefix applies to HTTP only).
    wsClientOptions: {
      rewriteRequestHeaders: (_headers: object, request: FastifyRequest) =>
        forwards.get(request)?.headers ?? {},
    },
    undici: {
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
      connect: { timeout: options.timeoutMs },
    },
    // Whatever fails before the App is reached (the read store) answers the envelope, never a bare 500.
    preHandler: async (request: FastifyRequest, reply: FastifyReply) => {
      try {
        return await admit(request, reply);
      } catch {
        return refuse(reply, 503, 'app_proxy_unavailable', 'the App proxy cannot serve this request now');
      }
    },
    replyOptions: {
      getUpstream: (request: FastifyRequest) => forwards.get(request)?.upstream ?? 'http://127.0.0.1:9',
      rewriteRequestHeaders: (request: FastifyRequest, headers: IncomingHttpHeaders) =>
        forwardedHeaders(headers, forwards.get(request)?.headers ?? {}),
      rewriteHeaders: (headers: Record<string, unknown>, request: FastifyRequest) => {
        const { 'set-cookie': cookies, 'content-security-policy': policy, ...rest } = headers;
        // The platform's session cookie is the platform's to set: an App cannot plant one.
        const kept =
          cookies === undefined ? [] : [cookies].flat().filter((cookie) => !isSessionCookie(cookie));
        const policies = [policy ?? []].flat();
        if (!onAppOrigin(request, options.appOrigin)) policies.push(APP_SANDBOX);
        return {
          ...rest,
          ...(kept.length > 0 ? { 'set-cookie': kept } : {}),
          ...(policies.length > 0 ? { 'content-security-policy': policies } : {}),
        };
      },
      onError: (reply: FastifyReply, { error }: { error: Error & { code?: string } }) => {
        const timeout = /timeout/i.test(`${error.code ?? ''} ${error.message}`);
        void refuse(
          reply,
          timeout ? 504 : 502,
          timeout ? 'app_timeout' : 'app_unreachable',
          timeout ? 'the App did not answer in time' : 'the App could not be reached',
        );
      },
    },
    handler: (request: FastifyRequest, reply: FastifyReply, _dest: string, replyOptions: object) => {
      const forward = forwards.get(request)!;
      return reply.from(forward.path, { ...replyOptions, getUpstream: () => forward.upstream });
    },
  } as never);
}

/**
 * The older bridge base path: anything under `/api/v1/admin` answers 307 to the same path (and query) under
 * `/api/v1/bridge`, so the client repeats the method and the body there (spec, Versioning rule 1).
 */
export function registerBridgeRedirect(fastify: FastifyInstance): void {
  fastify.route({
    method: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
    url: '/api/v1/admin/*',
    // The body is not read: the client sends it again to the new location.
    config: {},
    handler: (request, reply) => {
      void reply.redirect(request.url.replace(/^\/api\/v1\/admin/, '/api/v1/bridge'), 307);
    },
  });
}
