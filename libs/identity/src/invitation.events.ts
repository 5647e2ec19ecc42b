// The Invitation aggregate: an administrator invites a person by email with an instance role. The link carries a
// single-use token; the log keeps only its SHA-256 hash. Accepting it (once, before it expires, unless revoked)
// registers the user; there is no self sign-up.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { ConflictError, NotFoundError, ValidationError, type DomainEvent } from '#kernel';
import type { Decider } from '#eventsourcing';
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

export type InvitationCommand =
  | {
      readonly type: 'IssueInvitation';
      readonly invitationId: string;
      readonly email: string;
      readonly role: UserRole;
      readonly tokenHash: string;
      readonly expiresAt: string;
      readonly invitedByUserId: string;
      readonly source: ChangeSource;
    }
  | {
      readonly type: 'AcceptInvitation';
      readonly invitationId: string;
      readonly tokenHash: string;
      readonly userId: string;
      readonly now: string;
      readonly source: ChangeSource;
    }
  | {
      /** A first single sign-on whose provider vouched (email_verified) for the invitation's email. */
      readonly type: 'AcceptInvitationBySignOn';
      readonly invitationId: string;
      readonly verifiedEmail: string;
      readonly providerId: string;
      readonly userId: string;
      readonly now: string;
      readonly source: ChangeSource;
    }
  | { readonly type: 'RevokeInvitation'; readonly invitationId: string; readonly source: ChangeSource };

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

const invalidLink = () =>
  new ValidationError('invalid_invitation', 'the invitation link is not valid', 'token');

const sameHash = (a: string, b: string) =>
  a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

export const invitationDecider: Decider<InvitationState, InvitationCommand, InvitationEvent> = {
  initialState: () => ({ status: 'absent' }),
  evolve: (state, event) => {
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
  },
  decide: (command, state) => {
    switch (command.type) {
      case 'IssueInvitation': {
        if (state.status !== 'absent') {
          if (state.tokenHash === command.tokenHash) return [];
          throw new ConflictError('invitation_exists', `Invitation '${command.invitationId}' already exists`);
        }
        const { type: _type, ...data } = command;
        return [{ type: 'InvitationIssued', data: { ...data, email: command.email.toLowerCase() } }];
      }
      case 'AcceptInvitation':
      case 'AcceptInvitationBySignOn': {
        if (
          state.status === 'absent' ||
          (command.type === 'AcceptInvitation'
            ? !sameHash(state.tokenHash, command.tokenHash)
            : state.email !== command.verifiedEmail.toLowerCase())
        )
          throw invalidLink();
        if (state.status === 'accepted')
          throw new ConflictError('invitation_used', 'the invitation has already been accepted', 'token');
        if (state.status === 'revoked')
          throw new ConflictError('invitation_revoked', 'the invitation has been revoked', 'token');
        if (Date.parse(command.now) >= Date.parse(state.expiresAt))
          throw new ConflictError('invitation_expired', 'the invitation has expired', 'token');
        return [
          {
            type: 'InvitationAccepted',
            data: {
              invitationId: command.invitationId,
              userId: command.userId,
              ...(command.type === 'AcceptInvitationBySignOn' ? { providerId: command.providerId } : {}),
              source: command.source,
            },
          },
        ];
      }
      case 'RevokeInvitation':
        if (state.status === 'absent') throw new NotFoundError('Invitation', command.invitationId);
        if (state.status === 'revoked') return [];
        if (state.status === 'accepted')
          throw new ConflictError('invitation_used', 'the invitation has already been accepted');
        return [
          { type: 'InvitationRevoked', data: { invitationId: command.invitationId, source: command.source } },
        ];
    }
  },
};
