// The User aggregate: a person who owns API keys and signs in. Each gets a personal Agent. Today's key owners and the
// bootstrap admin were registered before invitations existed: they are users with nothing to do, treated as verified.
// No password reaches the log: only its argon2id hash (see password.ts).
import { forbidden } from '#access';
import { ConflictError, NotFoundError, ValidationError, type DomainEvent } from '#kernel';
import type { Decider } from '#eventsourcing';

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
      readonly role: UserRole;
      readonly language: UserLanguage;
      readonly passwordHash: string | null;
      /** The pending password reset link (its token's hash), if any. */
      readonly reset?: { readonly tokenHash: string; readonly expiresAt: string } | null;
    };

export type UserCommand =
  | {
      readonly type: 'RegisterUser';
      readonly userId: string;
      readonly email: string;
      readonly name: string;
      readonly role: UserRole;
      readonly language?: UserLanguage;
      readonly invitationId?: string;
      readonly source?: ChangeSource;
    }
  | {
      readonly type: 'ChangeUserRole';
      readonly userId: string;
      readonly role: UserRole;
      /** The user asking; nobody changes their own role. */
      readonly byUserId: string;
      /** Active administrators other than this user (the last one stays). */
      readonly otherActiveAdmins: number;
      readonly source: ChangeSource;
    }
  | {
      readonly type: 'DeactivateUser';
      readonly userId: string;
      readonly byUserId: string;
      readonly otherActiveAdmins: number;
      readonly source: ChangeSource;
    }
  | { readonly type: 'ReactivateUser'; readonly userId: string; readonly source: ChangeSource }
  | {
      readonly type: 'SetPassword';
      readonly userId: string;
      readonly passwordHash: string;
      readonly reason: 'invitation' | 'reset' | 'change';
      /** For a reset: the hash of the link's token, and when it is used. */
      readonly reset?: { readonly tokenHash: string; readonly now: string };
      readonly source: ChangeSource;
    }
  | {
      readonly type: 'IssuePasswordReset';
      readonly userId: string;
      readonly tokenHash: string;
      readonly expiresAt: string;
      readonly source: ChangeSource;
    }
  | { readonly type: 'SignOutEverywhere'; readonly userId: string; readonly source: ChangeSource }
  | {
      readonly type: 'ChangeLanguage';
      readonly userId: string;
      readonly language: UserLanguage;
      readonly source: ChangeSource;
    };

export const userStreamId = (userId: string): string => `user-${userId}`;

const EMAIL = /^[^\s@]+@[^\s@]+$/;

const endSessions = (userId: string, reason: SessionsEndedBecause, source: ChangeSource): UserEvent => ({
  type: 'UserSignedOutEverywhere',
  data: { userId, reason, source },
});

const lastAdmin = () =>
  new ConflictError('last_admin', 'the last active administrator cannot be demoted or deactivated');

export const userDecider: Decider<UserState, UserCommand, UserEvent> = {
  initialState: () => ({ status: 'absent' }),
  evolve: (state, event) => {
    if (event.type === 'UserRegistered')
      return {
        status: 'active',
        userId: event.data.userId,
        email: event.data.email,
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
      case 'UserSignedOutEverywhere':
        return state;
    }
  },
  decide: (command, state) => {
    if (command.type === 'RegisterUser') {
      if (state.status !== 'absent') {
        if (state.email === command.email.toLowerCase()) return [];
        throw new ConflictError('user_exists', `User '${command.userId}' already exists`);
      }
      if (!EMAIL.test(command.email))
        throw new ValidationError('invalid_email', 'email is not an email address', 'email');
      return [
        {
          type: 'UserRegistered',
          data: {
            userId: command.userId,
            email: command.email.toLowerCase(),
            name: command.name.trim() || command.email.split('@')[0]!,
            role: command.role,
            ...(command.language ? { language: command.language } : {}),
            ...(command.invitationId ? { invitationId: command.invitationId } : {}),
            ...(command.source ? { source: command.source } : {}),
          },
        },
      ];
    }
    if (state.status === 'absent') throw new NotFoundError('User', command.userId);
    const { userId, source } = command;
    switch (command.type) {
      case 'ChangeUserRole':
        if (command.byUserId === userId)
          throw forbidden('own_role_unchangeable', 'nobody changes their own role');
        if (state.role === command.role) return [];
        if (state.role === 'admin' && state.status === 'active' && command.otherActiveAdmins < 1)
          throw lastAdmin();
        return [
          { type: 'UserRoleChanged', data: { userId, role: command.role, source } },
          ...(command.role === 'admin' ? [] : [endSessions(userId, 'demoted', source)]),
        ];
      case 'DeactivateUser':
        if (command.byUserId === userId)
          throw forbidden('own_account_deactivation', 'nobody deactivates their own account');
        if (state.status === 'deactivated') return [];
        if (state.role === 'admin' && command.otherActiveAdmins < 1) throw lastAdmin();
        return [{ type: 'UserDeactivated', data: { userId, source } }];
      case 'ReactivateUser':
        return state.status === 'active' ? [] : [{ type: 'UserReactivated', data: { userId, source } }];
      case 'IssuePasswordReset':
        if (state.status !== 'active') throw forbidden('user_deactivated', 'the account is deactivated');
        return [
          {
            type: 'UserPasswordResetIssued',
            data: { userId, tokenHash: command.tokenHash, expiresAt: command.expiresAt, source },
          },
          endSessions(userId, 'passwordResetIssued', source),
        ];
      case 'SetPassword':
        if (command.reason === 'reset') {
          const pending = state.reset;
          if (!command.reset || !pending || pending.tokenHash !== command.reset.tokenHash)
            throw new ValidationError('invalid_reset_link', 'the password reset link is not valid', 'token');
          if (Date.parse(command.reset.now) >= Date.parse(pending.expiresAt))
            throw new ConflictError('reset_link_expired', 'the password reset link has expired', 'token');
        }
        if (state.status !== 'active') throw forbidden('user_deactivated', 'the account is deactivated');
        return [
          {
            type: 'UserPasswordSet',
            data: { userId, passwordHash: command.passwordHash, reason: command.reason, source },
          },
          ...(command.reason === 'reset' ? [endSessions(userId, 'passwordReset', source)] : []),
        ];
      case 'SignOutEverywhere':
        return [{ type: 'UserSignedOutEverywhere', data: { userId, source } }];
      case 'ChangeLanguage':
        return state.language === command.language
          ? []
          : [{ type: 'UserLanguageChanged', data: { userId, language: command.language, source } }];
    }
  },
};
