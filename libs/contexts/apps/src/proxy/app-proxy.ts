// The App proxy: `/app/{id}/...` forwarded to the App (its URL, or its container's address), streaming both ways with
// bounded timeouts, websockets upgraded. Apps rule 5: only `/admin`, `/user`, `/knowledge` and `/standalone` (and
// below) need a platform session, 401 without one (the rule is the proxy's row in the authorization table); every
// other path (the App's own API, OAuth callbacks, webhooks) is forwarded without one. That is decided on one
// normalised path, the one the App then gets (app-path.ts; an ambiguous spelling is 400 `invalid_app_path`). Rule 6:
// each request carries `svc_session_token` (for a signed-in person: short-lived, scoped to this App and person, usable
// as the bridge's bearer), `svc_server_url` (the platform's public URL) and `svc_base_path`. Nothing of the
// platform's credentials reaches the App: cookies, API keys, Authorization and an embed session are stripped, as are
// hop-by-hop headers and client-sent look-alikes of the proxy's own headers; the App's cookies are kept to its path
// and never a platform cookie, and its redirects stay under `/app/{id}` (else 502 `app_redirect_refused`). A
// standalone App (`standalone: true` in its /meta) is served full-page at `/app/{id}`, under its platform id and its
// stable `/meta` id alike. Isolation: served on the platform's origin, every App response
// carries a CSP `sandbox` without `allow-same-origin` (an opaque origin: no access to the platform's cookies or
// storage); on the separate App origin (APP_ORIGIN) it is its own origin.
//
// The routes are registered at start with nothing heavy behind them; the forwarding itself (undici for HTTP, `ws` for
// websockets, in app-forwarder.ts) is imported at the first App request, so an instance whose Apps are never opened
// never pays for it (issue 27: +75 ms and +17.5 MB at start with @fastify/http-proxy). Both kinds of request go to
// the same target: the App URL's origin and its path prefix followed by the path under `/app/{id}`.
import { ServerResponse, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errorBody } from '#http';
import { appPathNeedsSession } from '#access';
import type { ReadStore } from '#read-store';
import { APPS, type AppView } from '../apps.read-model.js';
import { liveSessionToken, type AppSessionTokens } from '../app-session-token.js';
import type { AppForwarder, Forward } from './app-forwarder.js';
import { normaliseAppPath } from './app-path.js';

const METHODS = ['DELETE', 'GET', 'HEAD', 'PATCH', 'POST', 'PUT', 'OPTIONS'];

export interface AppProxyOptions {
  readonly readStore: ReadStore;
  readonly tokens: AppSessionTokens;
  /** The signed-in person of a request (its session cookie), or null. */
  readonly sessionUser: (
    request: FastifyRequest,
  ) => Promise<{ readonly userId: string; readonly sessionId: string } | null>;
  /**
   * Where the platform is reached (`svc_server_url`): its effective public URL, never taken from a request (a Host
   * header is the client's to choose).
   */
  readonly serverUrl: () => string;
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

/** A websocket upgrade on its way through the router: the socket and the first bytes, kept on the raw request. */
interface Upgrade {
  readonly socket: Duplex;
  readonly head: Buffer;
}
const upgrades = new WeakMap<IncomingMessage, Upgrade>();

/** `/app/{id}/rest?query` → the App's id (or standalone `/meta` id) and the rest (`/rest?query`, `/` when none). */
function split(url: string): { appId: string; rest: string } | null {
  const match = /^\/app\/([A-Za-z0-9._-]{1,100})(\/[^?#]*)?(\?.*)?$/.exec(url);
  if (!match) return null;
  return { appId: match[1]!, rest: `${match[2] ?? '/'}${match[3] ?? ''}` };
}

/** The query parameter of a view's URL on APP_ORIGIN that stands for the person (see ListAgentApps). */
export const VIEW_TICKET = 'svc_session_token';

/** `/rest?query` without the view ticket (never forwarded: a platform credential), and the ticket if one came. */
function withoutTicket(rest: string): { rest: string; ticket: string | null } {
  const at = rest.indexOf('?');
  if (at === -1) return { rest, ticket: null };
  let ticket: string | null = null;
  const kept = rest
    .slice(at + 1)
    .split('&')
    .filter((part) => {
      const [name, value = ''] = part.split('=', 2) as [string, string?];
      if (name !== VIEW_TICKET) return true;
      try {
        ticket = decodeURIComponent(value);
      } catch {
        ticket = null;
      }
      return false;
    });
  return { rest: `${rest.slice(0, at)}${kept.length > 0 ? `?${kept.join('&')}` : ''}`, ticket };
}

/**
 * Every upgrade request goes through the router like any request (its hooks, the session rule), answering on the
 * socket itself; a route that accepts it (the App proxy) takes the socket over. An upgrade nothing accepts gets its
 * HTTP answer and the socket is closed.
 */
function routeUpgrades(fastify: FastifyInstance): void {
  fastify.server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    upgrades.set(request, { socket, head });
    const response = new ServerResponse(request);
    response.assignSocket(socket as never);
    response.on('finish', () => socket.destroy());
    fastify.routing(request, response);
  });
}

export async function registerAppProxy(fastify: FastifyInstance, options: AppProxyOptions): Promise<void> {
  const apps = options.readStore.reader<AppView>(APPS);
  const refuse = (reply: FastifyReply, status: number, code: string, message: string) =>
    reply
      .status(status)
      .header('content-type', 'application/json; charset=utf-8')
      .send(errorBody(status, code, message));

  /** Where a request goes and what it carries; or a refusal already answered (undefined). */
  const admit = async (request: FastifyRequest, reply: FastifyReply): Promise<Forward | undefined> => {
    const target = split(request.url);
    if (!target) return void (await refuse(reply, 404, 'app_not_found', 'no App is served at this path'));
    const app =
      (await apps.get(target.appId)) ??
      (await apps.find({ standaloneId: target.appId.toLowerCase() }, { limit: 1 })).data[0];
    if (!app) return void (await refuse(reply, 404, 'app_not_found', `App '${target.appId}' was not found`));
    const { rest, ticket } = withoutTicket(target.rest);
    const [rawPath = '/', query = ''] = rest.split(/(?=\?)/, 2);
    const normalised = normaliseAppPath(rawPath);
    if ('refused' in normalised)
      return void (await refuse(reply, 400, 'invalid_app_path', `${normalised.refused}: refused`));
    // A standalone App is its own full page at /app/{id} (its /standalone view, under the same session rule).
    const path = app.meta?.standalone && normalised.path === '/' ? '/standalone' : normalised.path;
    let user = await options.sessionUser(request);
    // On APP_ORIGIN the platform's session cookie is not there (another site): a view opened from the chat carries
    // the person's ticket for this App instead (a `svc_session_token`, checked like the bridge checks it).
    if (!user && ticket !== null && onAppOrigin(request, options.appOrigin)) {
      const holder = await liveSessionToken(options.tokens, options.readStore, ticket);
      if (holder?.claims.appId === app.id)
        user = { userId: holder.user.id, sessionId: holder.claims.sessionId };
    }
    if (appPathNeedsSession(path) && !user)
      return void (await refuse(
        reply,
        401,
        'session_required',
        'this part of the App needs a platform session: sign in',
      ));
    if (!app.upstreamUrl)
      return void (await refuse(reply, 502, 'app_unavailable', app.lastError ?? 'the App is not running'));
    const upstream = new URL(app.upstreamUrl);
    const prefix = upstream.pathname.replace(/\/+$/, '');
    return {
      origin: upstream.origin,
      prefix,
      path: `${prefix}${path}${query}`,
      basePath: `/app/${target.appId}`,
      policy: onAppOrigin(request, options.appOrigin) ? null : APP_SANDBOX,
      headers: {
        svc_server_url: options.serverUrl(),
        svc_base_path: `/app/${target.appId}`,
        ...(user
          ? { svc_session_token: await options.tokens.issue(app.id, user.userId, user.sessionId) }
          : {}),
      },
    };
  };

  let forwarder: Promise<AppForwarder> | undefined;
  const load = () =>
    (forwarder ??= import('./app-forwarder.js').then(
      ({ AppForwarder }) => new AppForwarder({ timeoutMs: options.timeoutMs, logger: fastify.log }),
    ));

  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    let forward: Forward | undefined;
    try {
      forward = await admit(request, reply);
    } catch {
      // Whatever fails before the App is reached (the read store) answers the envelope, never a bare 500.
      return refuse(reply, 503, 'app_proxy_unavailable', 'the App proxy cannot serve this request now');
    }
    if (!forward) return reply;
    const proxy = await load();
    const upgrade = upgrades.get(request.raw);
    if (upgrade) {
      reply.hijack();
      proxy.upgrade(request.raw, upgrade.socket, upgrade.head, forward);
      return reply;
    }
    return proxy.forward(request, reply, forward, refuse);
  };

  await fastify.register(async (scope) => {
    // Bodies go to the App as they come, unparsed (any content type).
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
    for (const url of ['/app/:appId', '/app/:appId/*']) scope.route({ method: METHODS, url, handler });
  });
  routeUpgrades(fastify);
  // Open websockets are closed (going away) before the server waits for its connections to end.
  fastify.addHook('preClose', async () => {
    if (forwarder) (await forwarder).close();
  });
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
