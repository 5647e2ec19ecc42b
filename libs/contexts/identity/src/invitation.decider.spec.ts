import { deciderSpec } from '#testing/decider-spec';
import { hashToken, invitationIdOf, newInvitationToken, type InvitationEvent } from './invitation.events.js';
import { invitationDecider } from './invitation.decider.js';

const given = deciderSpec(invitationDecider);
const source = { address: '10.0.0.1', userAgent: 'jest' };
const token = newInvitationToken('inv1');
const issued: InvitationEvent = {
  type: 'InvitationIssued',
  data: {
    invitationId: 'inv1',
    email: 'bo@example.com',
    role: 'member',
    tokenHash: hashToken(token),
    expiresAt: '2030-01-08T00:00:00.000Z',
    invitedByUserId: 'admin',
    source,
  },
};
const accept = {
  type: 'AcceptInvitation' as const,
  invitationId: 'inv1',
  tokenHash: hashToken(token),
  userId: 'u1',
  now: '2030-01-02T00:00:00.000Z',
  source,
};

describe('invitation decider', () => {
  it('the token names its invitation; the log keeps only its hash', () => {
    expect(invitationIdOf(token)).toBe('inv1');
    expect(invitationIdOf('inv_inv1.short')).toBeNull();
    expect(JSON.stringify(issued)).not.toContain(token.split('.')[1]);
  });

  it('accepts a pending invitation once', () => {
    given(issued)
      .when(accept)
      .then([{ type: 'InvitationAccepted', data: { invitationId: 'inv1', userId: 'u1', source } }]);
    given(issued, { type: 'InvitationAccepted', data: { invitationId: 'inv1', userId: 'u1', source } })
      .when(accept)
      .thenThrows('invitation_used');
  });

  it('refuses an expired, revoked or forged link', () => {
    given(issued)
      .when({ ...accept, now: '2030-01-08T00:00:00.000Z' })
      .thenThrows('invitation_expired');
    given(issued, { type: 'InvitationRevoked', data: { invitationId: 'inv1', source } })
      .when(accept)
      .thenThrows('invitation_revoked');
    given(issued)
      .when({ ...accept, tokenHash: hashToken(newInvitationToken('inv1')) })
      .thenThrows('invalid_invitation');
    given().when(accept).thenThrows('invalid_invitation');
  });

  it("a single sign-on accepts it only for the invitation's own (verified) email, once, before it expires", () => {
    const bySignOn = {
      type: 'AcceptInvitationBySignOn' as const,
      invitationId: 'inv1',
      verifiedEmail: 'Bo@Example.com',
      providerId: 'corp',
      userId: 'u1',
      now: '2030-01-02T00:00:00.000Z',
      source,
    };
    const accepted = {
      type: 'InvitationAccepted' as const,
      data: { invitationId: 'inv1', userId: 'u1', providerId: 'corp', source },
    };
    given(issued).when(bySignOn).then([accepted]);
    given(issued)
      .when({ ...bySignOn, verifiedEmail: 'eve@example.com' })
      .thenThrows('invalid_invitation');
    given(issued, accepted).when(bySignOn).thenThrows('invitation_used');
    given(issued)
      .when({ ...bySignOn, now: '2030-01-08T00:00:00.000Z' })
      .thenThrows('invitation_expired');
  });
});
