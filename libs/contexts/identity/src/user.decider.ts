// The User's commands and the pure decision over each: registration, role and activity (never one's own, never the
// last administrator), passwords and their reset links, signing out everywhere, the language and the name.
import { forbidden } from '#access';
import { ConflictError, NotFoundError, ValidationError } from '#kernel';
import { decideByType, type Decider } from '#eventsourcing';
import {
  evolveUser,
  initialUserState,
  type ChangeSource,
  type SessionsEndedBecause,
  type UserEvent,
  type UserLanguage,
  type UserRole,
  type UserState,
} from './user.events.js';

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
    }
  | {
      readonly type: 'RenameUser';
      readonly userId: string;
      readonly name: string;
      readonly source: ChangeSource;
    };

type UserOf<Type extends UserCommand['type']> = Extract<UserCommand, { readonly type: Type }>;
type KnownUser = Exclude<UserState, { readonly status: 'absent' }>;

const EMAIL = /^[^\s@]+@[^\s@]+$/;

const endSessions = (userId: string, reason: SessionsEndedBecause, source: ChangeSource): UserEvent => ({
  type: 'UserSignedOutEverywhere',
  data: { userId, reason, source },
});

const lastAdmin = () =>
  new ConflictError('last_admin', 'the last active administrator cannot be demoted or deactivated');

/** Every command but registration is about a user that exists. */
const existing =
  <Command extends Exclude<UserCommand, { readonly type: 'RegisterUser' }>>(
    decide: (command: Command, state: KnownUser) => UserEvent[],
  ) =>
  (command: Command, state: UserState): UserEvent[] => {
    if (state.status === 'absent') throw new NotFoundError('User', command.userId);
    return decide(command, state);
  };

const activeOnly = (state: KnownUser) => {
  if (state.status !== 'active') throw forbidden('user_deactivated', 'the account is deactivated');
};

function registerUser(command: UserOf<'RegisterUser'>, state: UserState): UserEvent[] {
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

const changeUserRole = existing((command: UserOf<'ChangeUserRole'>, state): UserEvent[] => {
  const { userId, source } = command;
  if (command.byUserId === userId) throw forbidden('own_role_unchangeable', 'nobody changes their own role');
  if (state.role === command.role) return [];
  if (state.role === 'admin' && state.status === 'active' && command.otherActiveAdmins < 1) throw lastAdmin();
  return [
    { type: 'UserRoleChanged', data: { userId, role: command.role, source } },
    ...(command.role === 'admin' ? [] : [endSessions(userId, 'demoted', source)]),
  ];
});

const deactivateUser = existing((command: UserOf<'DeactivateUser'>, state): UserEvent[] => {
  const { userId, source } = command;
  if (command.byUserId === userId)
    throw forbidden('own_account_deactivation', 'nobody deactivates their own account');
  if (state.status === 'deactivated') return [];
  if (state.role === 'admin' && command.otherActiveAdmins < 1) throw lastAdmin();
  return [{ type: 'UserDeactivated', data: { userId, source } }];
});

const reactivateUser = existing(({ userId, source }: UserOf<'ReactivateUser'>, state): UserEvent[] =>
  state.status === 'active' ? [] : [{ type: 'UserReactivated', data: { userId, source } }],
);

const issuePasswordReset = existing((command: UserOf<'IssuePasswordReset'>, state): UserEvent[] => {
  const { userId, source } = command;
  activeOnly(state);
  return [
    {
      type: 'UserPasswordResetIssued',
      data: { userId, tokenHash: command.tokenHash, expiresAt: command.expiresAt, source },
    },
    endSessions(userId, 'passwordResetIssued', source),
  ];
});

const setPassword = existing((command: UserOf<'SetPassword'>, state): UserEvent[] => {
  const { userId, source } = command;
  if (command.reason === 'reset') {
    const pending = state.reset;
    if (!command.reset || !pending || pending.tokenHash !== command.reset.tokenHash)
      throw new ValidationError('invalid_reset_link', 'the password reset link is not valid', 'token');
    if (Date.parse(command.reset.now) >= Date.parse(pending.expiresAt))
      throw new ConflictError('reset_link_expired', 'the password reset link has expired', 'token');
  }
  activeOnly(state);
  return [
    {
      type: 'UserPasswordSet',
      data: { userId, passwordHash: command.passwordHash, reason: command.reason, source },
    },
    ...(command.reason === 'reset' ? [endSessions(userId, 'passwordReset', source)] : []),
  ];
});

const signOutEverywhere = existing(({ userId, source }: UserOf<'SignOutEverywhere'>): UserEvent[] => [
  { type: 'UserSignedOutEverywhere', data: { userId, source } },
]);

const changeLanguage = existing(
  ({ userId, language, source }: UserOf<'ChangeLanguage'>, state): UserEvent[] =>
    state.language === language ? [] : [{ type: 'UserLanguageChanged', data: { userId, language, source } }],
);

const renameUser = existing(({ userId, name, source }: UserOf<'RenameUser'>, state): UserEvent[] => {
  const trimmed = name.trim();
  if (trimmed.length === 0) throw new ValidationError('invalid_name', 'the name must not be empty', 'name');
  return state.name === trimmed ? [] : [{ type: 'UserRenamed', data: { userId, name: trimmed, source } }];
});

export const userDecider: Decider<UserState, UserCommand, UserEvent> = {
  initialState: initialUserState,
  evolve: evolveUser,
  decide: decideByType<UserState, UserCommand, UserEvent>({
    RegisterUser: registerUser,
    ChangeUserRole: changeUserRole,
    DeactivateUser: deactivateUser,
    ReactivateUser: reactivateUser,
    IssuePasswordReset: issuePasswordReset,
    SetPassword: setPassword,
    SignOutEverywhere: signOutEverywhere,
    ChangeLanguage: changeLanguage,
    RenameUser: renameUser,
  }),
};
