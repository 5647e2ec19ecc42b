// The User aggregate: a person who owns API keys and signs in. Each gets a personal Agent. Today's key owners and the
// bootstrap admin were registered before invitations existed: they are users with nothing to do, treated as verified.
// No password reaches the log: only its argon2id hash (see password.ts).
import type { DomainEvent } from '#kernel';

export type UserRole = 'admin' | 'member';
export type UserLanguage = 'de' | 'en';
export const USER_LANGUAGES = ['de', 'en'] as const;

/** Where a change came from: the request's source address and user agent (no credential). */
export interface ChangeSource {
  readonly address: string | null;
  readonly userAgent: string | null;
}

export type UserEvent =
  | DomainEvent<
      'UserRegistered',
      {
        readonly userId: string;
        readonly email: string;
        readonly name: string;
        readonly role: UserRole;
        /** Set for users who accepted an invitation; absent (read as `en`) for earlier users. */
        readonly language?: UserLanguage;
        readonly invitationId?: string;
        readonly source?: ChangeSource;
      }
    >
  | DomainEvent<
      'UserRoleChanged',
      { readonly userId: string; readonly role: UserRole; readonly source: ChangeSource }
    >
  | DomainEvent<'UserDeactivated', { readonly userId: string; readonly source: ChangeSource }>
  | DomainEvent<'UserReactivated', { readonly userId: string; readonly source: ChangeSource }>
  | DomainEvent<
      'UserPasswordSet',
      {
        readonly userId: string;
        /** The argon2id hash (PHC string), never the password. */
        readonly passwordHash: string;
        readonly reason: 'invitation' | 'reset' | 'change';
        readonly source: ChangeSource;
      }
    >
  | DomainEvent<
      'UserPasswordResetIssued',
      {
        readonly userId: string;
        /** SHA-256 of the single-use link's token, never the token. */
        readonly tokenHash: string;
        readonly expiresAt: string;
        readonly source: ChangeSource;
      }
    >
  | DomainEvent<
      'UserSignedOutEverywhere',
      {
        readonly userId: string;
        /** Absent when the person asked; otherwise what ended their sessions along with it. */
        readonly reason?: SessionsEndedBecause;
        readonly source: ChangeSource;
      }
    >
  | DomainEvent<
      'UserRenamed',
      { readonly userId: string; readonly name: string; readonly source: ChangeSource }
    >
  | DomainEvent<
      'UserLanguageChanged',
      { readonly userId: string; readonly language: UserLanguage; readonly source: ChangeSource }
    >;

/**
 * What else ends every session of a person (and the App tokens derived from them): whoever held a session before a
 * password reset or a demotion must not keep the access it gave.
 */
export type SessionsEndedBecause = 'passwordReset' | 'passwordResetIssued' | 'demoted';

export type UserState =
  | { readonly status: 'absent' }
  | {
      readonly status: 'active' | 'deactivated';
      readonly userId: string;
      readonly email: string;
      /** Absent in states folded before the name was kept: any rename then records one. */
      readonly name?: string;
      readonly role: UserRole;
      readonly language: UserLanguage;
      readonly passwordHash: string | null;
      /** The pending password reset link (its token's hash), if any. */
      readonly reset?: { readonly tokenHash: string; readonly expiresAt: string } | null;
    };

export const userStreamId = (userId: string): string => `user-${userId}`;

export const initialUserState = (): UserState => ({ status: 'absent' });

export const evolveUser = (state: UserState, event: UserEvent): UserState => {
  if (event.type === 'UserRegistered')
    return {
      status: 'active',
      userId: event.data.userId,
      email: event.data.email,
      name: event.data.name,
      role: event.data.role,
      language: event.data.language ?? 'en',
      passwordHash: null,
    };
  if (state.status === 'absent') return state;
  switch (event.type) {
    case 'UserRoleChanged':
      return { ...state, role: event.data.role };
    case 'UserDeactivated':
      return { ...state, status: 'deactivated' };
    case 'UserReactivated':
      return { ...state, status: 'active' };
    case 'UserPasswordSet':
      return { ...state, passwordHash: event.data.passwordHash, reset: null };
    case 'UserPasswordResetIssued':
      return { ...state, reset: { tokenHash: event.data.tokenHash, expiresAt: event.data.expiresAt } };
    case 'UserLanguageChanged':
      return { ...state, language: event.data.language };
    case 'UserRenamed':
      return { ...state, name: event.data.name };
    case 'UserSignedOutEverywhere':
      return state;
  }
};
