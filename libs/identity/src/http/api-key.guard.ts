// Authentication for every route not marked @Public(): the core API takes `x-api-key` only; routes marked
// @AcceptsBearer() (the compatible gateway) also take `Authorization: Bearer`. Unknown or revoked keys get 401.
// Deny by default: a route without a row in the authorization table (ROUTE_AUTHORIZATION) answers 403
// `route_not_authorized` to everyone, public or not, until its row says who may call it.
// Over 300 lines on purpose: the one place every request's credential becomes a Caller — an API key, a session
// cookie, an App token or svc_session_token on the bridge, an embed visitor session — so that no route can be reached
// by a credential kind this file does not judge.
import { randomUUID } from 'node:crypto';
import {
  Inject,
  Injectable,
  Optional,
  SetMetadata,
  type CanActivate,
  type ExecutionContext,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ForbiddenError, PLATFORM_CONFIG, UnauthorizedError, type PlatformConfig } from '#kernel';
import { sessionIdOf } from '../session.events.js';
import { SessionClock } from '../sessions/session-clock.js';
import { SessionUse } from '../sessions/session-use.js';
import { sessionSecretOf } from '../sessions/session-cookie.js';
import { READ_STORE, type ReadStore } from '#read-store';
import { PUBLIC_ROUTE, sourceOf, type RequestWithCaller } from './caller.js';
import { API_KEYS, API_KEYS_READ_MODEL, type ApiKeyView } from '../api-keys.read-model.js';
import { ProjectionCache, ProjectionRunner } from '#eventsourcing';
import { AppCallers, BRIDGE_PREFIX } from './app-callers.js';
import { isEmbedVisitorRoute, routeRuleOf } from '../authorization/routes.js';
import {
  EMBED_SESSION_HEADER,
  EmbedRateLimits,
  EmbedVisitorSessions,
  embedKeyId,
} from '../embed/embed-visitor.js';

import { hashApiKey } from '../api-key.secret.js';
import {
  endedWithItsUser,
  SESSIONS,
  USERS,
  USERS_READ_MODEL,
  type SessionView,
  type UserView,
} from '../users.read-model.js';

export const ACCEPTS_BEARER = 'platform:accepts-bearer';
export const AcceptsBearer = () => SetMetadata(ACCEPTS_BEARER, true);

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

@Injectable()
export class ApiKeyGuard implements CanActivate {
  // Known keys by hash (and their owners and sessions by id), so a request costs no read-store query: dropped whenever
  // their projection applies a batch in this process (a revocation or a deactivation is then seen at once), trusted
  // one second when another process runs it.
  private readonly known: ProjectionCache<ApiKeyView>;
  private readonly users: ProjectionCache<UserView>;
  private readonly sessions: ProjectionCache<SessionView>;

  constructor(
    private readonly reflector: Reflector,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    runner: ProjectionRunner,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
    private readonly clock: SessionClock,
    private readonly sessionUse: SessionUse,
    private readonly visitors: EmbedVisitorSessions,
    private readonly embedLimits: EmbedRateLimits,
    @Optional() private readonly appCallers?: AppCallers,
  ) {
    this.known = new ProjectionCache(runner, API_KEYS_READ_MODEL.projection);
    this.users = new ProjectionCache(runner, USERS_READ_MODEL.projection);
    this.sessions = new ProjectionCache(runner, USERS_READ_MODEL.projection);
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    const request = context.switchToHttp().getRequest<RequestWithCaller>();
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, targets)) {
      this.requireRow(request);
      return true;
    }
    // The bridge (`/api/v1/bridge/...`) takes App credentials only: an App token or a svc_session_token.
    if ((request.routeOptions.url ?? '').startsWith(BRIDGE_PREFIX)) {
      request.caller = await this.appCaller(request);
      return true;
    }
    const visitorToken = request.headers[EMBED_SESSION_HEADER];
    if (typeof visitorToken === 'string') {
      request.caller = this.visitorCaller(request, visitorToken);
      return true;
    }
    const bearer = this.reflector.getAllAndOverride<boolean>(ACCEPTS_BEARER, targets) ?? false;
    const key = this.presentedKey(request, bearer);
    // The session cookie: on the core API only (the compatible gateway stays key-only), never beside a key.
    const sessionSecret = !key && !bearer ? sessionSecretOf(request) : null;
    if (sessionSecret) {
      request.caller = await this.sessionCaller(request, sessionSecret);
      return true;
    }
    if (!key)
      throw new UnauthorizedError(
        'missing_api_key',
        bearer
          ? 'send an API key as `Authorization: Bearer <key>` or in the x-api-key header'
          : 'send an API key in the x-api-key header',
      );
    const keyHash = hashApiKey(key);
    const apiKey = await this.known.get(keyHash, async () => {
      const page = await this.readStore.reader<ApiKeyView>(API_KEYS).find({ keyHash }, { limit: 1 });
      return page.data[0];
    });
    if (!apiKey) throw new UnauthorizedError('invalid_api_key', 'the API key is not valid');
    if (apiKey.revoked) throw new UnauthorizedError('api_key_revoked', 'the API key has been revoked');
    const owner = await this.requireActiveUser(apiKey.ownerUserId);
    this.requireRow(request);
    const requestId = request.headers['x-request-id'];
    request.caller = {
      apiKey,
      actor: { kind: 'apiKey', id: apiKey.id },
      userId: apiKey.ownerUserId,
      // An admin key acts as an admin only while its user is one: a demoted user's admin keys lose admin rights.
      isAdmin: apiKey.isAdmin && (owner?.role ?? 'admin') === 'admin',
      // The key acts as its user: an admin user's key (admin key or not) uses every Agent its grants allow.
      userIsAdmin: (owner?.role ?? (apiKey.isAdmin ? 'admin' : 'member')) === 'admin',
      correlationId: typeof requestId === 'string' && REQUEST_ID.test(requestId) ? requestId : randomUUID(),
      source: sourceOf(request),
    };
    return true;
  }

  /**
   * The caller of a session cookie: a live session (not revoked, within its absolute and idle timeouts, started after
   * its user last signed out everywhere or was deactivated) of an active user, acting as that user's key granted
   * every Agent. An unsafe request must come from the instance's own origin (CSRF).
   */
  /**
   * The person the request's session cookie signs in, or null: no cookie, a session that is over, or an unsafe
   * request that does not come from this instance (CSRF: it is then treated as without a session). The App proxy's
   * rule for the sub-paths that need a platform session.
   */
  async sessionUser(
    request: RequestWithCaller,
  ): Promise<{ userId: string; isAdmin: boolean; sessionId: string } | null> {
    const secret = sessionSecretOf(request);
    if (!secret) return null;
    try {
      const caller = await this.sessionCaller(request, secret, false);
      this.requireSameOrigin(request);
      return { userId: caller.userId, isAdmin: caller.isAdmin, sessionId: caller.session.id };
    } catch {
      return null;
    }
  }

  private async sessionCaller(request: RequestWithCaller, secret: string, routed = true) {
    const sessionId = sessionIdOf(secret);
    const session = await this.sessions.get(
      sessionId,
      async () => (await this.readStore.reader<SessionView>(SESSIONS).get(sessionId)) ?? undefined,
    );
    const refused = () => new UnauthorizedError('invalid_session', 'the session is over: sign in again');
    if (!session || session.revoked) throw refused();
    const now = this.clock.now();
    const { sessionIdleMs } = this.config.people;
    const lastSeen = Math.max(this.sessionUse.lastSeenAt(sessionId), Date.parse(session.lastSeenAt));
    if (now >= Date.parse(session.expiresAt) || now - lastSeen > sessionIdleMs) throw refused();
    const user = await this.users.get(
      session.userId,
      async () => (await this.readStore.reader<UserView>(USERS).get(session.userId)) ?? undefined,
    );
    if (!user || user.status === 'deactivated') throw refused();
    if (endedWithItsUser(session, user)) throw refused();
    if (routed) {
      this.requireRow(request);
      this.requireSameOrigin(request);
    }
    this.sessionUse.used(sessionId, lastSeen, now);
    const requestId = request.headers['x-request-id'];
    const isAdmin = user.role === 'admin';
    return {
      apiKey: {
        id: sessionId,
        name: 'session',
        ownerUserId: user.id,
        keyHash: '',
        keyPrefix: '',
        agentAccess: { kind: 'all' as const },
        isAdmin,
        usageLimit: null,
        bootstrap: false,
        revoked: false,
        revokedAt: null,
        createdAt: session.createdAt,
        updatedAt: session.createdAt,
      },
      session: { id: sessionId },
      actor: { kind: 'user' as const, id: user.id },
      userId: user.id,
      isAdmin,
      correlationId: typeof requestId === 'string' && REQUEST_ID.test(requestId) ? requestId : randomUUID(),
      source: sourceOf(request),
    };
  }

  /** The caller of a bridge request: its App token or `svc_session_token` (Authorization: Bearer). */
  private async appCaller(request: RequestWithCaller) {
    const authorization = request.headers.authorization;
    const match = typeof authorization === 'string' ? /^Bearer\s+(\S+)$/i.exec(authorization) : null;
    if (!match)
      throw new UnauthorizedError(
        'missing_app_token',
        'send the App token or a svc_session_token as `Authorization: Bearer <token>`',
      );
    const params = request.params as Record<string, unknown> | undefined;
    const agentId = typeof params?.agentId === 'string' ? params.agentId : null;
    const caller = this.appCallers ? await this.appCallers.callerOf(match[1]!, agentId, request) : null;
    if (!caller) throw new UnauthorizedError('invalid_app_token', 'the App token is not valid');
    if (caller.app?.user) await this.requireActiveUser(caller.app.user.userId);
    this.requireRow(request);
    return caller;
  }

  /**
   * The caller of an embed visitor session: a session this instance signed, not expired, on one of the embed's chat
   * routes (EMBED_VISITOR_ROUTES) of the Agent it is bound to; a new message counts against the abuse limits. The
   * policy decides the rest (the Agent must still be public).
   */
  private visitorCaller(request: RequestWithCaller, token: string) {
    const session = this.visitors.verify(token);
    if (!session)
      throw new UnauthorizedError('invalid_embed_session', 'the chat session is over: reload the page');
    this.requireRow(request);
    const route = request.routeOptions.url ?? request.url;
    const agentId = (request.params as Record<string, string> | undefined)?.agentId;
    if (!isEmbedVisitorRoute(request.method, route) || agentId !== session.agentId)
      throw new ForbiddenError(
        'embed_route_denied',
        'an embed chat session may only chat with its own Agent',
      );
    if (request.method === 'POST') this.embedLimits.take(session);
    const requestId = request.headers['x-request-id'];
    const at = new Date(session.expiresAt).toISOString();
    return {
      apiKey: {
        id: embedKeyId(session.agentId),
        name: 'embed',
        ownerUserId: session.visitorId,
        keyHash: '',
        keyPrefix: '',
        agentAccess: { kind: 'agents' as const, agentIds: [session.agentId] },
        isAdmin: false,
        usageLimit: { tokens: null, costUsd: session.limits.dailyCostUsd, window: 'day' as const },
        bootstrap: false,
        revoked: false,
        revokedAt: null,
        createdAt: at,
        updatedAt: at,
      },
      visitor: { agentId: session.agentId, visitorId: session.visitorId },
      actor: { kind: 'embedVisitor' as const, id: session.visitorId },
      userId: session.visitorId,
      isAdmin: false,
      correlationId: typeof requestId === 'string' && REQUEST_ID.test(requestId) ? requestId : randomUUID(),
      source: sourceOf(request),
    };
  }

  /** CSRF: a cookie-authenticated unsafe request must say it comes from this instance (Origin, else Referer). */
  private requireSameOrigin(request: RequestWithCaller): void {
    if (['GET', 'HEAD', 'OPTIONS'].includes(request.method)) return;
    const origin = request.headers.origin ?? request.headers.referer;
    const presented = typeof origin === 'string' && URL.canParse(origin) ? new URL(origin).origin : null;
    const host = request.headers.host;
    const allowed = [
      new URL(this.config.people.publicUrl).origin,
      ...(typeof host === 'string' ? [`http://${host}`, `https://${host}`] : []),
    ];
    if (!presented || !allowed.includes(presented))
      throw new ForbiddenError(
        'csrf_origin_mismatch',
        'a request signed in by cookie must come from this instance (Origin header)',
      );
  }

  /** 401 when the credential's user is deactivated: every key and session of that person stops at once. */
  private async requireActiveUser(userId: string): Promise<UserView | undefined> {
    const user = await this.users.get(
      userId,
      async () => (await this.readStore.reader<UserView>(USERS).get(userId)) ?? undefined,
    );
    if (user?.status === 'deactivated')
      throw new UnauthorizedError('user_deactivated', 'the account of this credential is deactivated');
    return user;
  }

  /** 403 unless the route has a row in the authorization table. */
  private requireRow(request: RequestWithCaller): void {
    const route = request.routeOptions.url ?? request.url;
    if (routeRuleOf(request.method, route) === undefined)
      throw new ForbiddenError(
        'route_not_authorized',
        'this route has no row in the authorization table, so no one may call it yet',
      );
  }

  private presentedKey(request: RequestWithCaller, acceptsBearer: boolean): string | null {
    const header = request.headers['x-api-key'];
    if (typeof header === 'string' && header.length > 0) return header;
    if (!acceptsBearer) return null;
    const authorization = request.headers.authorization;
    const match = typeof authorization === 'string' ? /^Bearer\s+(\S+)$/i.exec(authorization) : null;
    return match ? match[1]! : null;
  }
}
