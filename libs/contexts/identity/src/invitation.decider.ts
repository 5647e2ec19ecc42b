// The Invitation's commands and the pure decision over each: issued once, accepted once (by its link's token or a
// provider's verified email) before it expires unless revoked, revoked while pending.
import { timingSafeEqual } from 'node:crypto';
import { ConflictError, NotFoundError, ValidationError } from '#kernel';
import { decideByType, type Decider } from '#eventsourcing';
import {
  evolveInvitation,
  initialInvitationState,
  type InvitationEvent,
  type InvitationState,
} from './invitation.events.js';
import type { ChangeSource, UserRole } from './user.events.js';

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

type InvitationOf<Type extends InvitationCommand['type']> = Extract<
  InvitationCommand,
  { readonly type: Type }
>;

const invalidLink = () =>
  new ValidationError('invalid_invitation', 'the invitation link is not valid', 'token');

const sameHash = (a: string, b: string) =>
  a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

function issueInvitation(
  command: InvitationOf<'IssueInvitation'>,
  state: InvitationState,
): InvitationEvent[] {
  if (state.status !== 'absent') {
    if (state.tokenHash === command.tokenHash) return [];
    throw new ConflictError('invitation_exists', `Invitation '${command.invitationId}' already exists`);
  }
  const { type: _type, ...data } = command;
  return [{ type: 'InvitationIssued', data: { ...data, email: command.email.toLowerCase() } }];
}

function acceptInvitation(
  command: InvitationOf<'AcceptInvitation' | 'AcceptInvitationBySignOn'>,
  state: InvitationState,
): InvitationEvent[] {
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

function revokeInvitation(
  command: InvitationOf<'RevokeInvitation'>,
  state: InvitationState,
): InvitationEvent[] {
  if (state.status === 'absent') throw new NotFoundError('Invitation', command.invitationId);
  if (state.status === 'revoked') return [];
  if (state.status === 'accepted')
    throw new ConflictError('invitation_used', 'the invitation has already been accepted');
  return [
    { type: 'InvitationRevoked', data: { invitationId: command.invitationId, source: command.source } },
  ];
}

export const invitationDecider: Decider<InvitationState, InvitationCommand, InvitationEvent> = {
  initialState: initialInvitationState,
  evolve: evolveInvitation,
  decide: decideByType<InvitationState, InvitationCommand, InvitationEvent>({
    IssueInvitation: issueInvitation,
    AcceptInvitation: acceptInvitation,
    AcceptInvitationBySignOn: acceptInvitation,
    RevokeInvitation: revokeInvitation,
  }),
};
