// The User aggregate: a person who owns API keys (and, later, signs in). Each gets a personal Agent.
import { ConflictError, ValidationError, type DomainEvent } from '#kernel';
import type { Decider } from '#eventsourcing';

export type UserRole = 'admin' | 'member';

export type UserEvent = DomainEvent<
  'UserRegistered',
  { readonly userId: string; readonly email: string; readonly name: string; readonly role: UserRole }
>;

export type UserState =
  | { readonly status: 'absent' }
  | { readonly status: 'active'; readonly userId: string; readonly email: string; readonly role: UserRole };

export type UserCommand = {
  readonly type: 'RegisterUser';
  readonly userId: string;
  readonly email: string;
  readonly name: string;
  readonly role: UserRole;
};

export const userStreamId = (userId: string): string => `user-${userId}`;

const EMAIL = /^[^\s@]+@[^\s@]+$/;

export const userDecider: Decider<UserState, UserCommand, UserEvent> = {
  initialState: () => ({ status: 'absent' }),
  evolve: (_state, event) => ({
    status: 'active',
    userId: event.data.userId,
    email: event.data.email,
    role: event.data.role,
  }),
  decide: (command, state) => {
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
        },
      },
    ];
  },
};
