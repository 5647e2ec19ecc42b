// Sessions of people signed in, and sign-in attempts. A session's secret lives only in the person's cookie: the log
// and the read model know it by `ses_` + its SHA-256 (the session's id), never the secret. Sign-out revokes one;
// "sign out everywhere", deactivation, a password reset and a demotion end every session started before them (the
// user's `sessionsNotBefore`).
import { createHash, randomBytes } from 'node:crypto';
import type { DomainEvent } from '#kernel';
import type { ChangeSource } from './user.events.js';

export type SessionEvent =
  | DomainEvent<
      'SessionStarted',
      {
        readonly sessionId: string;
        readonly userId: string;
        readonly method: SessionMethod;
        /** The OpenID provider of an `oidc` session. */
        readonly providerId?: string;
        readonly expiresAt: string;
        readonly source: ChangeSource;
      }
    >
  | DomainEvent<'SessionRefreshed', { readonly sessionId: string }>
  | DomainEvent<
      'SessionRevoked',
      { readonly sessionId: string; readonly reason: 'signOut'; readonly source: ChangeSource }
    >;

export type SessionMethod = 'password' | 'invitation' | 'oidc';

/** Why a single sign-on was refused (the provider's answer is never recorded, nor a token). */
export type OidcFailure =
  | 'invalid_response'
  | 'invalid_state'
  | 'email_unverified'
  | 'identity_not_linked'
  | 'identity_linked_elsewhere'
  | 'email_taken';

/**
 * A failed sign-in, on a stream per email (hashed in the stream's name), or per provider when a single sign-on failed
 * before an email was known; never the password, a token or a code.
 */
export type SignInEvent = DomainEvent<
  'SignInFailed',
  {
    /** The email tried (empty when a single sign-on failed before the provider's answer was verified). */
    readonly email: string;
    /** The user, when the email is one's; null for an unknown email (the answer is the same). */
    readonly userId: string | null;
    readonly reason:
      'unknown_email' | 'wrong_password' | 'no_password' | 'deactivated' | 'rate_limited' | OidcFailure;
    /** Set for a single sign-on: the provider. */
    readonly providerId?: string;
    readonly source: ChangeSource;
  }
>;

export type SessionState =
  | { readonly status: 'absent' }
  | { readonly status: 'active' | 'revoked'; readonly userId: string; readonly expiresAt: string };

export const sessionStreamId = (sessionId: string) => `session-${sessionId}`;
export const signInStreamId = (email: string) =>
  `sign-in-${createHash('sha256').update(email.toLowerCase()).digest('hex').slice(0, 40)}`;
/** Where a single sign-on's failure before an email was known is recorded. */
export const providerSignInStreamId = (providerId: string) => `sign-in-provider-${providerId}`;

/** A new session secret (the cookie's value). */
export const newSessionSecret = (): string => randomBytes(32).toString('base64url');
/** The session's id: what the log, the read model and the routes know of a secret. */
export const sessionIdOf = (secret: string): string =>
  `ses_${createHash('sha256').update(secret).digest('hex').slice(0, 48)}`;

export const initialSessionState = (): SessionState => ({ status: 'absent' });

export const evolveSession = (state: SessionState, event: SessionEvent): SessionState => {
  switch (event.type) {
    case 'SessionStarted':
      return { status: 'active', userId: event.data.userId, expiresAt: event.data.expiresAt };
    case 'SessionRefreshed':
      return state;
    case 'SessionRevoked':
      return state.status === 'absent' ? state : { ...state, status: 'revoked' };
  }
};
