// Who is calling: the authenticated API key, its owner, and the correlation id every event of the request carries.
import { randomUUID } from 'node:crypto';
import { createParamDecorator, SetMetadata, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { Actor, RequestSource } from '#kernel';
import type { CommandContext, IdempotentRequest } from '#eventsourcing';
import type { CallerKey } from './grants.js';

export interface Caller {
  /**
   * The key of the request; for a session, the session standing in for a key of its user granted every Agent
   * (`id` is the session's id, so usage, cost control and Idempotency-Keys are the session's).
   */
  readonly apiKey: CallerKey;
  /** Set when the request came with a session cookie instead of a key. */
  readonly session?: { readonly id: string };
  /**
   * Set on a bridge request (`/api/v1/bridge`): the App whose token (or `svc_session_token`) it carried, the
   * allowlist as it concerns the request, and the person of a session token. The policy reads it as an App token.
   */
  readonly app?: {
    readonly appId: string;
    readonly allowlist: readonly string[] | 'standalone';
    readonly user?: { readonly userId: string; readonly isAdmin: boolean };
  };
  /**
   * Set when the request came with an embed visitor session (`x-embed-session`): an anonymous visitor of this public
   * Agent. `apiKey` is then the Agent's embed key (`embed_<agentId>`, whose usage limit is the Agent's daily cost cap)
   * and `userId` the visitor's id (their conversations are theirs alone).
   */
  readonly visitor?: { readonly agentId: string; readonly visitorId: string };
  /**
   * Set when the platform itself acts through a caller (a replay's searches, ingestion's model calls): the policy reads
   * it as the platform principal (`process` names it). `apiKey` is then PLATFORM_USAGE_KEY: whose usage it is, no key.
   */
  readonly platform?: { readonly process: string };
  readonly actor: Actor;
  readonly userId: string;
  /** Admin rights: an admin key of an admin user, or an admin's session. */
  readonly isAdmin: boolean;
  /** Whether the key's user is an instance admin (the key then uses every Agent its grants allow); absent: isAdmin. */
  readonly userIsAdmin?: boolean;
  readonly correlationId: string;
  /** The request's source address and user agent, recorded on identity events. */
  readonly source?: RequestSource;
  /** Set by the Idempotency-Key interceptor: the request's ids derive from it (see newEntityId). */
  readonly idempotent?: IdempotentRequest;
}

export type RequestWithCaller = FastifyRequest & { caller?: Caller };

/** The usage the platform's own calls are recorded under ('system'): not a credential, nobody presents it. */
export const PLATFORM_USAGE_KEY: CallerKey = {
  id: 'system',
  name: 'platform',
  ownerUserId: 'system',
  agentAccess: { kind: 'all' },
  isAdmin: false,
  usageLimit: null,
};

/** The caller of what the platform does itself: the policy's platform principal, in its own correlation. */
export const platformCaller = (process: string, correlationId: string): Caller => ({
  apiKey: PLATFORM_USAGE_KEY,
  platform: { process },
  actor: { kind: 'system', id: process },
  userId: 'system',
  isAdmin: true,
  correlationId,
});

export const CurrentCaller = createParamDecorator((_data: unknown, context: ExecutionContext): Caller => {
  const caller = context.switchToHttp().getRequest<RequestWithCaller>().caller;
  if (!caller) throw new Error('route has no authenticated caller: is it marked @Public()?');
  return caller;
});

export const commandContext = (caller: Caller): CommandContext => ({
  actor: caller.actor,
  correlationId: caller.correlationId,
  ...(caller.idempotent ? { request: caller.idempotent } : {}),
  ...(caller.source ? { source: caller.source } : {}),
  now: () => new Date(),
});

/** The context of a request to a public route (no credential yet): the system acts until a handler knows who. */
export const publicContext = (route: string): CommandContext => ({
  actor: { kind: 'system', id: route },
  correlationId: randomUUID(),
  now: () => new Date(),
});

/** The request's source as recorded on identity events (nothing known: both null). */
export const changeSourceOf = (caller: Caller): RequestSource =>
  caller.source ?? { address: null, userAgent: null };

/** Where a request came from (for identity events): its source address and user agent, bounded. */
export const sourceOf = (request: FastifyRequest): RequestSource => {
  const agent = request.headers['user-agent'];
  return {
    address: request.ip || null,
    userAgent: typeof agent === 'string' && agent.length > 0 ? agent.slice(0, 256) : null,
  };
};

export const PUBLIC_ROUTE = 'platform:public-route';
/** A route that needs no API key (health, metrics, API docs). */
export const Public = () => SetMetadata(PUBLIC_ROUTE, true);
