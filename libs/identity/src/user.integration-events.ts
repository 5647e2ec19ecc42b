// What others hear of users (integration events, see #integration-events): a user was registered, with their role.
// Not their email or name (personal data a consumer reads through the API). Membership events do not exist yet: when
// they do, map them here as a second map (`defineIntegrationEvents<MembershipEvent>('membership', …)`, types
// `membership.<fact>.v1`) and list it in apps/integration-events.ts.
import { defineIntegrationEvents } from '#integration-events';
import type { UserEvent } from './user.events.js';

export const USER_INTEGRATION_EVENTS = defineIntegrationEvents<UserEvent>('user', {
  UserRegistered: ({ data }) => ({
    fact: 'registered',
    subject: { userId: data.userId },
    data: { role: data.role },
  }),
});
