// The users read model (owners of API keys). Built by projections/users.
import { defineReadModel } from '#eventsourcing';
import type { UserRole } from './user.events.js';

export interface UserView {
  readonly id: string;
  readonly email: string;
  readonly name: string;
  readonly role: UserRole;
  readonly createdAt: string;
}

export const USERS = 'users';

export const USERS_READ_MODEL = defineReadModel<UserView>({
  name: USERS,
  projection: 'users',
  indexes: [{ fields: ['email'] }, { fields: ['createdAt'] }],
});
