// The Invitation aggregate: an administrator invites a person by email with an instance role. The link carries a
// single-use token; the log keeps only its SHA-256 hash. Accepting it (once, before it expires, unless revoked)
// registers the user; there is no self sign-up.
import { createHash, randomBytes } from 'node:crypto';
import type { DomainEvent } from '#kernel';
import type { ChangeSource, UserRole } from './user.events.js';

export type InvitationEvent =
  | DomainEvent<
      'InvitationIssued',
      {
        readonly invitationId: string;
        readonly email: string;
        readonly role: UserRole;
        readonly tokenHash: string;
        readonly expiresAt: string;
        readonly invitedByUserId: string;
        readonly source: ChangeSource;
      }
    >
  | DomainEvent<
      'InvitationAccepted',
      {
        readonly invitationId: string;
        readonly userId: string;
        /** Set when the invitation was accepted by single sign-on (the provider's verified email matched). */
        readonly providerId?: string;
        readonly source: ChangeSource;
      }
    >
  | DomainEvent<'InvitationRevoked', { readonly invitationId: string; readonly source: ChangeSource }>;

export type InvitationState =
  | { readonly status: 'absent' }
  | {
      readonly status: 'pending' | 'accepted' | 'revoked';
      readonly invitationId: string;
      readonly email: string;
      readonly role: UserRole;
      readonly tokenHash: string;
      readonly expiresAt: string;
    };

export const invitationStreamId = (invitationId: string): string => `invitation-${invitationId}`;

/** The token a link carries: `inv_<invitationId>.<secret>`; the id says which stream to load. */
export const newInvitationToken = (invitationId: string): string =>
  `inv_${invitationId}.${randomBytes(32).toString('base64url')}`;

export const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');

/** The invitation id a token names, or null for anything that is not a token. */
export const invitationIdOf = (token: string): string | null => {
  const match = /^inv_([A-Za-z0-9_-]{1,80})\.[A-Za-z0-9_-]{43}$/.exec(token);
  return match ? match[1]! : null;
};

export const initialInvitationState = (): InvitationState => ({ status: 'absent' });

export const evolveInvitation = (state: InvitationState, event: InvitationEvent): InvitationState => {
  switch (event.type) {
    case 'InvitationIssued': {
      const { invitationId, email, role, tokenHash, expiresAt } = event.data;
      return { status: 'pending', invitationId, email, role, tokenHash, expiresAt };
    }
    case 'InvitationAccepted':
      return state.status === 'absent' ? state : { ...state, status: 'accepted' };
    case 'InvitationRevoked':
      return state.status === 'absent' ? state : { ...state, status: 'revoked' };
  }
};
