// What others hear of users (integration events, see #integration-events): a user was registered, with their role; a
// role changed; a user was deactivated or reactivated.
// Not their email or name (personal data a consumer reads through the API). Space memberships are the Spaces
// context's (#spaces space.integration-events.ts, `membership.<fact>.v1`).
import { defineIntegrationEvents } from '#integration-events';
import type { UserEvent } from './user.events.js';

export const USER_INTEGRATION_EVENTS = defineIntegrationEvents<UserEvent>('user', {
  UserRegistered: ({ data }) => ({
    fact: 'registered',
    subject: { userId: data.userId },
    data: { role: data.role },
  }),
  UserRoleChanged: ({ data }) => ({
    fact: 'role-changed',
    subject: { userId: data.userId },
    data: { role: data.role },
  }),
  UserDeactivated: ({ data }) => ({ fact: 'deactivated', subject: { userId: data.userId }, data: {} }),
  UserReactivated: ({ data }) => ({ fact: 'reactivated', subject: { userId: data.userId }, data: {} }),
  // Credentials, sessions and preferences stay inside.
  UserPasswordSet: null,
  UserPasswordResetIssued: null,
  UserSignedOutEverywhere: null,
  UserLanguageChanged: null,
  // A name is personal data (see above).
  UserRenamed: null,
});
