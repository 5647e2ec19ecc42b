import { projectionHarness } from '#testing/projection-harness';
import { IDENTITIES, identityIdOf, INVITATIONS, SESSIONS, USERS } from '#identity';
import { usersProjector } from './users.projector.js';

const source = { address: '10.0.0.1', userAgent: 'jest' };

describe('users projection', () => {
  it('keeps users, invitations and sessions, never a password hash, token hash or session secret', async () => {
    const h = await projectionHarness(usersProjector);
    const events = [
      h.envelope({
        type: 'InvitationIssued',
        data: {
          invitationId: 'inv1',
          email: 'bo@example.com',
          role: 'member',
          tokenHash: 'TOKENHASH',
          expiresAt: '2030-01-01T00:00:00.000Z',
          invitedByUserId: 'admin',
          source,
        },
      }),
      h.envelope({
        type: 'UserRegistered',
        data: { userId: 'u1', email: 'bo@example.com', name: 'Bo', role: 'member', language: 'de', source },
      }),
      h.envelope({
        type: 'UserPasswordSet',
        data: { userId: 'u1', passwordHash: '$argon2id$SECRETHASH', reason: 'invitation', source },
      }),
      h.envelope({ type: 'InvitationAccepted', data: { invitationId: 'inv1', userId: 'u1', source } }),
      h.envelope({
        type: 'SessionStarted',
        data: {
          sessionId: 'ses_1',
          userId: 'u1',
          method: 'password',
          expiresAt: '2030-01-01T00:00:00.000Z',
          source,
        },
      }),
      h.envelope({ type: 'SessionRevoked', data: { sessionId: 'ses_1', reason: 'signOut', source } }),
      h.envelope({ type: 'UserDeactivated', data: { userId: 'u1', source } }),
      h.envelope({ type: 'UserRenamed', data: { userId: 'u1', name: 'Bo Berg', source } }),
    ];
    await h.apply(...events);
    await h.apply(...events);
    const user = await h.get(USERS, 'u1');
    expect(user).toMatchObject({ status: 'deactivated', language: 'de', hasPassword: true, name: 'Bo Berg' });
    expect(user).toMatchObject({ sessionsNotBefore: events[6]!.metadata.occurredAt });
    expect(await h.get(INVITATIONS, 'inv1')).toMatchObject({ status: 'accepted', userId: 'u1' });
    // The browser it was started in, to tell one's sessions apart.
    expect(await h.get(SESSIONS, 'ses_1')).toMatchObject({ userId: 'u1', revoked: true, userAgent: 'jest' });
    const stored = JSON.stringify([user, await h.get(INVITATIONS, 'inv1'), await h.get(SESSIONS, 'ses_1')]);
    expect(stored).not.toMatch(/SECRETHASH|TOKENHASH/);
  });

  it('keeps the identities linked to users, and forgets an unlinked one (each event applied twice)', async () => {
    const h = await projectionHarness(usersProjector);
    const identityId = identityIdOf('social', 'sub-1');
    const linked = h.envelope({
      type: 'IdentityLinked',
      data: {
        identityId,
        providerId: 'social',
        subject: 'sub-1',
        userId: 'u1',
        email: 'ada@example.com',
        via: 'session',
        source,
      },
    });
    await h.apply(linked, linked);
    expect(await h.get(IDENTITIES, identityId)).toMatchObject({
      providerId: 'social',
      subject: 'sub-1',
      userId: 'u1',
      via: 'session',
      createdAt: linked.metadata.occurredAt,
    });
    const unlinked = h.envelope({
      type: 'IdentityUnlinked',
      data: { identityId, providerId: 'social', userId: 'u1', source },
    });
    await h.apply(unlinked, unlinked);
    expect(await h.get(IDENTITIES, identityId)).toBeNull();
  });
});
