// The invitations read model (pending, accepted, revoked; never the token). Built by projections/users.
import { defineReadModel } from '#eventsourcing';
import type { UserRole } from './user.events.js';

export interface InvitationView {
  readonly id: string;
  readonly email: string;
  readonly role: UserRole;
  readonly status: 'pending' | 'accepted' | 'revoked';
  readonly expiresAt: string;
  readonly invitedByUserId: string;
  readonly userId: string | null;
  readonly createdAt: string;
  readonly updatedAt: string;
}

export const INVITATIONS = 'invitations';

export const INVITATIONS_READ_MODEL = defineReadModel<InvitationView>({
  name: INVITATIONS,
  projection: 'users',
  indexes: [{ fields: ['email'] }, { fields: ['createdAt'] }],
});
