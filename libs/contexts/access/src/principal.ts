// Who asks: every kind of principal the platform has or is about to have. Today requests come with an API key (a
// `Caller`, see ./caller.ts; `principalOf` turns it into a principal); the other kinds are in the type so that
// the policy already answers for them (and denies what it has no rule for) when they arrive.
import type { Caller } from './caller.js';

import type { AgentAccess } from './grants.js';

/** An API key, acting for its user (`userId`), limited by its grants (the Agents it may use). */
export interface ApiKeyPrincipal {
  readonly kind: 'apiKey';
  readonly userId: string;
  readonly keyId: string;
  readonly grants: AgentAccess;
  /** An admin key of a user who is an admin: the key holds admin rights. */
  readonly isAdmin: boolean;
  /**
   * Whether the key's user is an instance admin (who may use every Agent): a key that is not an admin key still acts
   * as its user, narrowed by its grants. Absent: as `isAdmin`.
   */
  readonly userIsAdmin?: boolean;
}

/** A user signed in: what a key of that user granted every Agent may do (until Space membership narrows it). */
export interface SessionPrincipal {
  readonly kind: 'session';
  readonly userId: string;
  readonly isAdmin: boolean;
}

/**
 * An App's token: an allowlist of the Agents it may use, or standalone (no Agent). Presented as a `svc_session_token`
 * (the proxy's short-lived token for a signed-in person) it also carries that person (`user`), whose own rights
 * narrow it further. The bridge gives the allowlist as it concerns the request: the targeted Agent when the App's
 * allowlist holds it, else empty.
 */
export interface AppTokenPrincipal {
  readonly kind: 'appToken';
  readonly appId: string;
  readonly allowlist: readonly string[] | 'standalone';
  readonly user?: { readonly userId: string; readonly isAdmin: boolean };
}

/** An anonymous visitor of a public Agent's embed: that Agent, nothing else. */
export interface EmbedVisitorPrincipal {
  readonly kind: 'embedVisitor';
  readonly agentId: string;
  readonly visitorId: string;
}

/** The platform itself: a process manager acting on the log's behalf (`process` names it, for the reason). */
export interface PlatformPrincipal {
  readonly kind: 'platform';
  readonly process: string;
}

export type Principal =
  ApiKeyPrincipal | SessionPrincipal | AppTokenPrincipal | EmbedVisitorPrincipal | PlatformPrincipal;

export type PrincipalKind = Principal['kind'];

/** The principal of a request: its App token (bridge), an embed visitor's session, its API key, or its session. */
export const principalOf = (caller: Caller): Principal =>
  caller.platform
    ? platformPrincipal(caller.platform.process)
    : caller.app
      ? {
          kind: 'appToken',
          appId: caller.app.appId,
          allowlist: caller.app.allowlist,
          ...(caller.app.user ? { user: caller.app.user } : {}),
        }
      : caller.visitor
        ? { kind: 'embedVisitor', agentId: caller.visitor.agentId, visitorId: caller.visitor.visitorId }
        : caller.session
          ? { kind: 'session', userId: caller.userId, isAdmin: caller.isAdmin }
          : {
              kind: 'apiKey',
              userId: caller.userId,
              keyId: caller.apiKey.id,
              grants: caller.apiKey.agentAccess,
              isAdmin: caller.isAdmin,
              ...(caller.userIsAdmin !== undefined ? { userIsAdmin: caller.userIsAdmin } : {}),
            };

/** The user a principal acts for (an API key's owner, a session's person); null for the others. */
export const userIdOf = (principal: Principal): string | null =>
  principal.kind === 'apiKey' || principal.kind === 'session' ? principal.userId : null;

/**
 * Whose own things (conversations, memories) a principal reaches: a user's, by key or session; an embed visitor's
 * own conversations; null for the others (an App, the platform).
 */
export const ownerIdOf = (principal: Principal): string | null =>
  principal.kind === 'apiKey' || principal.kind === 'session'
    ? principal.userId
    : principal.kind === 'embedVisitor'
      ? principal.visitorId
      : null;

/** A principal or a request's caller (which the policy reads as its API-key principal). */
export type PrincipalOrCaller = Principal | Caller;

export const asPrincipal = (who: PrincipalOrCaller): Principal => ('kind' in who ? who : principalOf(who));

/** The principal a process manager's commands carry (`process`: its name, for the reason). */
export const platformPrincipal = (process: string): PlatformPrincipal => ({ kind: 'platform', process });
