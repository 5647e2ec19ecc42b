// Authentication for every route not marked @Public(): the core API takes `x-api-key` only; routes marked
// @AcceptsBearer() (the compatible gateway) also take `Authorization: Bearer`. Unknown or revoked keys get 401.
// Deny by default: a route without a row in the authorization table (ROUTE_AUTHORIZATION) answers 403
// `route_not_authorized` to everyone, public or not, until its row says who may call it.
// The one place every request's credential becomes a Caller — an API key, a session cookie, an App token or
// svc_session_token on the bridge, an embed visitor session — so that no route can be reached by a credential kind
// this file does not judge. Whom a key or a session stands for, the users context answers (the Credentials port);
// an App token, the apps context (AppCallers).
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
import { PUBLIC_ROUTE, sourceOf, type Caller, type RequestWithCaller } from '../caller.js';
import { demandOfPrincipal, isPrincipalAction } from '../denials.js';
import { isEmbedVisitorRoute, routeRuleOf } from '../routes.js';
import { AppCallers, BRIDGE_PREFIX } from './app-callers.js';
import { Credentials, type CredentialCaller } from './credentials.js';
import { EMBED_SESSION_HEADER, EmbedRateLimits, EmbedVisitorSessions, embedKeyId } from './embed-visitor.js';

export const ACCEPTS_BEARER = 'platform:accepts-bearer';
export const AcceptsBearer = () => SetMetadata(ACCEPTS_BEARER, true);

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** What a route's decorators say of its credentials (handler over class). */
interface RouteMarks {
  readonly isPublic: boolean;
  readonly acceptsBearer: boolean;
}

@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
    private readonly credentials: Credentials,
    private readonly visitors: EmbedVisitorSessions,
    private readonly embedLimits: EmbedRateLimits,
    @Optional() private readonly appCallers?: AppCallers,
  ) {}

  /**
   * Each route's marks, read from its metadata once: decorators set it when the classes load, and the reflector's
   * walk up the prototype chains cost about 1 % of a gateway request's CPU. By handler, then class (a handler
   * inherited by two controllers has the marks of each).
   */
  private readonly marks = new WeakMap<object, WeakMap<object, RouteMarks>>();

  private marksOf(context: ExecutionContext): RouteMarks {
    const handler = context.getHandler() as object | undefined;
    const controller = context.getClass() as object | undefined;
    const read = (): RouteMarks => {
      const targets = [handler, controller] as Parameters<Reflector['getAllAndOverride']>[1];
      return {
        isPublic: Boolean(this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, targets)),
        acceptsBearer: this.reflector.getAllAndOverride<boolean>(ACCEPTS_BEARER, targets) ?? false,
      };
    };
    // Without both (a context made by hand) there is nothing to keep the marks by.
    if (typeof handler !== 'function' || typeof controller !== 'function') return read();
    let byClass = this.marks.get(handler);
    if (byClass === undefined) {
      byClass = new WeakMap();
      this.marks.set(handler, byClass);
    }
    let marks = byClass.get(controller);
    if (marks === undefined) {
      marks = read();
      byClass.set(controller, marks);
    }
    return marks;
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const marks = this.marksOf(context);
    const request = context.switchToHttp().getRequest<RequestWithCaller>();
    if (marks.isPublic) {
      this.requireRow(request);
      return true;
    }
    request.caller = await this.callerOf(request, marks.acceptsBearer);
    // The one place a route's own action is asked, when it reads nothing but the principal (admin-only and
    // users-only routes); actions on a resource are asked where the resource is loaded.
    const rule = routeRuleOf(request.method, request.routeOptions.url ?? request.url);
    if (typeof rule === 'string' && isPrincipalAction(rule)) demandOfPrincipal(request.caller, rule);
    return true;
  }

  private async callerOf(request: RequestWithCaller, bearer: boolean): Promise<Caller> {
    // The bridge (`/api/v1/bridge/...`) takes App credentials only: an App token or a svc_session_token.
    if ((request.routeOptions.url ?? '').startsWith(BRIDGE_PREFIX)) return this.appCaller(request);
    const visitorToken = request.headers[EMBED_SESSION_HEADER];
    if (typeof visitorToken === 'string') return this.visitorCaller(request, visitorToken);
    const key = this.presentedKey(request, bearer);
    // The session cookie: on the core API only (the compatible gateway stays key-only), never beside a key.
    const sessionSecret = !key && !bearer ? this.credentials.sessionSecret(request) : null;
    if (sessionSecret) return this.sessionCaller(request, sessionSecret);
    if (!key)
      throw new UnauthorizedError(
        'missing_api_key',
        bearer
          ? 'send an API key as `Authorization: Bearer <key>` or in the x-api-key header'
          : 'send an API key in the x-api-key header',
      );
    const caller = await this.credentials.ofApiKey(key);
    this.requireRow(request);
    return this.requestCaller(request, caller);
  }

  /**
   * The person the request's session cookie signs in, or null: no cookie, a session that is over, or an unsafe
   * request that does not come from this instance (CSRF: it is then treated as without a session). The App proxy's
   * rule for the sub-paths that need a platform session.
   */
  async sessionUser(
    request: RequestWithCaller,
  ): Promise<{ userId: string; isAdmin: boolean; sessionId: string } | null> {
    const secret = this.credentials.sessionSecret(request);
    if (!secret) return null;
    try {
      const caller = await this.sessionCaller(request, secret, false);
      this.requireSameOrigin(request);
      return { userId: caller.userId, isAdmin: caller.isAdmin, sessionId: caller.session.id };
    } catch {
      return null;
    }
  }

  /** Whether the request's API key or session is an admin's (false without a valid one): what a public route shows admins. */
  async isAdmin(request: RequestWithCaller): Promise<boolean> {
    const key = this.presentedKey(request, false);
    if (!key) return (await this.sessionUser(request))?.isAdmin ?? false;
    return this.credentials.ofApiKey(key).then(
      (caller) => caller.isAdmin,
      () => false,
    );
  }

  /**
   * The caller of a session cookie (the users context judges the session: see Credentials.ofSession), on a route with
   * a row; an unsafe request must come from the instance's own origin (CSRF). `routed`: false for the App proxy.
   */
  private async sessionCaller(request: RequestWithCaller, secret: string, routed = true) {
    const { caller, used } = await this.credentials.ofSession(secret);
    if (routed) {
      this.requireRow(request);
      this.requireSameOrigin(request);
    }
    used();
    return this.requestCaller(request, caller);
  }

  /** The caller with the request's correlation id (its x-request-id when well-formed) and source. */
  private requestCaller<C extends CredentialCaller>(request: RequestWithCaller, caller: C): C & Caller {
    const requestId = request.headers['x-request-id'];
    return {
      ...caller,
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
    if (caller.app?.user) await this.credentials.requireActiveUser(caller.app.user.userId);
    this.requireRow(request);
    return caller;
  }

  /**
   * The caller of an embed visitor session: a session this instance signed, not expired, on one of the embed's chat
   * routes (EMBED_VISITOR_ROUTES) of the Agent it is bound to; a new message counts against the abuse limits. The
   * policy decides the rest (the Agent must still be public).
   */
  private async visitorCaller(request: RequestWithCaller, token: string) {
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
    if (request.method === 'POST') await this.embedLimits.take(session);
    return this.requestCaller(request, {
      apiKey: {
        id: embedKeyId(session.agentId),
        name: 'embed',
        ownerUserId: session.visitorId,
        agentAccess: { kind: 'agents' as const, agentIds: [session.agentId] },
        isAdmin: false,
        usageLimit: { tokens: null, costUsd: session.limits.dailyCostUsd, window: 'day' as const },
      },
      visitor: { agentId: session.agentId, visitorId: session.visitorId },
      actor: { kind: 'embedVisitor' as const, id: session.visitorId },
      userId: session.visitorId,
      isAdmin: false,
    });
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
