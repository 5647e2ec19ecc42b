import { deciderSpec } from '#testing/decider-spec';
import type { SessionEvent } from './session.events.js';
import { sessionDecider, signInDecider } from './session.decider.js';

const given = deciderSpec(sessionDecider);
const source = { address: '127.0.0.1', userAgent: 'jest' };
const start = {
  sessionId: 'ses_1',
  userId: 'usr_1',
  method: 'password' as const,
  expiresAt: '2026-12-01T00:00:00.000Z',
  source,
};
const started: SessionEvent = { type: 'SessionStarted', data: start };
const revoked: SessionEvent = {
  type: 'SessionRevoked',
  data: { sessionId: 'ses_1', reason: 'signOut', source },
};

describe('a session (decider)', () => {
  it('starts once: a retried start records nothing more', () => {
    given()
      .when({ type: 'StartSession', ...start })
      .then([started]);
    given(started)
      .when({ type: 'StartSession', ...start })
      .then([]);
  });

  it('is refreshed while active, and not once revoked or never started', () => {
    given(started)
      .when({ type: 'RefreshSession', sessionId: 'ses_1' })
      .then([{ type: 'SessionRefreshed', data: { sessionId: 'ses_1' } }]);
    given(started, revoked).when({ type: 'RefreshSession', sessionId: 'ses_1' }).then([]);
    given().when({ type: 'RefreshSession', sessionId: 'ses_1' }).then([]);
  });

  it('is revoked once, by signing out', () => {
    given(started).when({ type: 'RevokeSession', sessionId: 'ses_1', source }).then([revoked]);
    given(started, revoked).when({ type: 'RevokeSession', sessionId: 'ses_1', source }).then([]);
  });
});

describe('a failed sign-in (decider)', () => {
  it('is recorded as it was tried, every time', () => {
    const data = { email: 'ada@example.com', userId: null, reason: 'unknown_email' as const, source };
    deciderSpec(signInDecider)({ type: 'SignInFailed', data })
      .when(data)
      .then([{ type: 'SignInFailed', data }]);
  });
});
