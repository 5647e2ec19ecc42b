// The port through which the guard learns whom a credential stands for: the users context (identity) answers it from
// its keys, sessions and users; the guard owns the rest of authentication (which credential a route takes, CSRF, the
// route table's row). A port, so that access imports no context: identity imports access, not the other way round.
import type { FastifyRequest } from 'fastify';
import type { Caller } from '../caller.js';

/** A caller as its credential decides it; the guard adds the request's correlation id and source. */
export type CredentialCaller = Omit<Caller, 'correlationId' | 'source' | 'idempotent'>;

/** A live session's caller, and how to record that it was used (once the request is let through). */
export interface SessionCredential {
  readonly caller: CredentialCaller & { readonly session: { readonly id: string } };
  readonly used: () => void;
}

export abstract class Credentials {
  /** The secret of the request's session cookie, or null. */
  abstract sessionSecret(request: FastifyRequest): string | null;
  /** The caller of an API key: 401 when the key is unknown or revoked or its user deactivated. */
  abstract ofApiKey(key: string): Promise<CredentialCaller>;
  /**
   * The caller of a session: 401 when the session is over (revoked, past its absolute or idle timeout, ended with
   * its user, or its user deactivated).
   */
  abstract ofSession(secret: string): Promise<SessionCredential>;
  /** 401 when the user is deactivated: every key and session of that person stops at once. */
  abstract requireActiveUser(userId: string): Promise<void>;
}
