import { deciderSpec } from '#testing/decider-spec';
import { identityIdOf } from './external-identity.events.js';
import { externalIdentityDecider } from './external-identity.decider.js';

const given = deciderSpec(externalIdentityDecider);
const source = { address: '10.0.0.1', userAgent: 'jest' };
const link = (userId: string) => ({
  type: 'LinkIdentity' as const,
  providerId: 'social',
  subject: 'sub-1',
  userId,
  email: 'ada@example.com',
  via: 'session' as const,
  source,
});
const identityId = identityIdOf('social', 'sub-1');
const linkedTo = (userId: string) => ({
  type: 'IdentityLinked' as const,
  data: {
    identityId,
    providerId: 'social',
    subject: 'sub-1',
    userId,
    email: 'ada@example.com',
    via: 'session' as const,
    source,
  },
});
const linked = linkedTo('u1');

describe('the external identity decider', () => {
  it('links an identity once; again to the same user is nothing', () => {
    given().when(link('u1')).then([linked]);
    given(linked).when(link('u1')).then([]);
  });

  it('refuses an identity linked to another user (account takeover)', () => {
    given(linked).when(link('u2')).thenThrows('identity_linked_elsewhere');
  });

  it('unlinks only for its user; after that it may be linked again', () => {
    const unlink = {
      type: 'UnlinkIdentity' as const,
      providerId: 'social',
      subject: 'sub-1',
      userId: 'u1',
      source,
    };
    const unlinked = {
      type: 'IdentityUnlinked' as const,
      data: { identityId, providerId: 'social', userId: 'u1', source },
    };
    given(linked)
      .when({ ...unlink, userId: 'u2' })
      .thenThrows('identity_not_found');
    given(linked).when(unlink).then([unlinked]);
    given(linked, unlinked)
      .when(link('u2'))
      .then([linkedTo('u2')]);
  });

  it('names an identity by provider and subject, not by either alone', () => {
    expect(identityIdOf('a', 'b')).not.toBe(identityIdOf('b', 'a'));
    expect(identityIdOf('social', 'sub-1')).toMatch(/^idn_[0-9a-f]{40}$/);
  });
});
