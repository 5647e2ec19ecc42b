// The users read model (people who sign in and own API keys). Built by projections/users; never a password hash.
import { defineReadModel } from '#eventsourcing';
import type { UserLanguage, UserRole } from './user.events.js';

export interface UserView {
  readonly id: string;
  readonly email: string;
  readonly name: string;
  readonly role: UserRole;
  /** Absent on documents projected before issue 21: read as active. */
  readonly status?: 'active' | 'deactivated';
  readonly language?: UserLanguage;
  readonly hasPassword?: boolean;
  /** Start of the per-user usage window (cost control): the user's registration until changed. */
  readonly usageWindowStart?: string;
  /** Sessions started before this (sign out everywhere, deactivation, a password reset, a demotion) are over. */
  readonly sessionsNotBefore?: string | null;
  readonly createdAt: string;
  readonly updatedAt?: string;
}

export const USERS = 'users';

export const USERS_READ_MODEL = defineReadModel<UserView>({
  name: USERS,
  projection: 'users',
  indexes: [{ fields: ['email'] }, { fields: ['createdAt'] }, { fields: ['role'] }],
});

/** A session (never its secret: `id` is `ses_` + the secret's SHA-256). Built by projections/users. */
export interface SessionView {
  readonly id: string;
  readonly userId: string;
  readonly method: string;
  /** The browser's User-Agent at sign-in (absent on sessions projected before it was kept). */
  readonly userAgent?: string | null;
  readonly expiresAt: string;
  readonly lastSeenAt: string;
  readonly revoked: boolean;
  readonly createdAt: string;
}

export const SESSIONS = 'sessions';

/**
 * Whether the session began before its person's sessions were ended (signing out everywhere, deactivation, a password
 * reset, a demotion): then it, and every token derived from it, is over.
 */
export const endedWithItsUser = (session: SessionView, user: UserView): boolean =>
  !!user.sessionsNotBefore && session.createdAt <= user.sessionsNotBefore;

export const SESSIONS_READ_MODEL = defineReadModel<SessionView>({
  name: SESSIONS,
  projection: 'users',
  indexes: [{ fields: ['userId'] }],
});

/** An identity at an OpenID provider linked to a user (`id`: identityIdOf(provider, subject)). */
export interface IdentityView {
  readonly id: string;
  readonly providerId: string;
  /** The provider's `sub` for the person (an identifier, not a credential). */
  readonly subject: string;
  readonly userId: string;
  readonly email: string | null;
  readonly via: string;
  readonly createdAt: string;
}

export const IDENTITIES = 'identities';

export const IDENTITIES_READ_MODEL = defineReadModel<IdentityView>({
  name: IDENTITIES,
  projection: 'users',
  indexes: [{ fields: ['userId'] }],
});
