// Who asks: every kind of principal the platform has or is about to have. Today requests come with an API key (a
// `Caller`, see ../http/caller.ts; `principalOf` turns it into a principal); the other kinds are in the type so that
// the policy already answers for them (and denies what it has no rule for) when they arrive.
import type { AgentAccess } from '../api-key.events.js';
import type { Caller } from '../http/caller.js';

/** An API key, acting for its user (`userId`), limited by its grants (the Agents it may use). */
export interface ApiKeyPrincipal {
  readonly kind: 'apiKey';
  readonly userId: string;
  readonly keyId: string;
  readonly grants: AgentAccess;
  readonly isAdmin: boolean;
}

/** A user signed in: what a key of that user granted every Agent may do (until Space membership narrows it). */
export interface SessionPrincipal {
  readonly kind: 'session';
  readonly userId: string;
  readonly isAdmin: boolean;
}

/** An App's token: an allowlist of the Agents it may use, or standalone (no Agent). */
export interface AppTokenPrincipal {
  readonly kind: 'appToken';
  readonly appId: string;
  readonly allowlist: readonly string[] | 'standalone';
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

/** The principal of a request: its API key, its session, or an embed visitor's session. */
export const principalOf = (caller: Caller): ApiKeyPrincipal | SessionPrincipal | EmbedVisitorPrincipal =>
  caller.visitor
    ? { kind: 'embedVisitor', agentId: caller.visitor.agentId, visitorId: caller.visitor.visitorId }
    : caller.session
      ? { kind: 'session', userId: caller.userId, isAdmin: caller.isAdmin }
      : {
          kind: 'apiKey',
          userId: caller.userId,
          keyId: caller.apiKey.id,
          grants: caller.apiKey.agentAccess,
          isAdmin: caller.isAdmin,
        };

/** A principal or a request's caller (which the policy reads as its API-key principal). */
export type PrincipalOrCaller = Principal | Caller;

export const asPrincipal = (who: PrincipalOrCaller): Principal => ('kind' in who ? who : principalOf(who));
