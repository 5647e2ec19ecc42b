import { apiKeyDecider } from './api-key.decider.js';
import type { ApiKeyEvent } from './api-key.events.js';
import { userDecider } from './user.decider.js';
import { deciderSpec } from '#testing/decider-spec';

const given = deciderSpec(apiKeyDecider);

const issuedData = {
  apiKeyId: 'k1',
  name: 'ci',
  ownerUserId: 'u1',
  keyHash: 'h'.repeat(64),
  keyPrefix: 'ap_abcd',
  agentAccess: { kind: 'all' as const },
  isAdmin: false,
  usageLimit: null,
  bootstrap: false,
};
const issued: ApiKeyEvent = { type: 'ApiKeyIssued', data: issuedData };

describe('API key decider', () => {
  it('issues a key carrying only its hash', () =>
    given()
      .when({ type: 'IssueApiKey', ...issuedData })
      .then([issued]));

  it('re-issuing the same key hash is a no-op (bootstrap at every start)', () =>
    given(issued)
      .when({ type: 'IssueApiKey', ...issuedData })
      .then([]));

  it('refuses a usage limit with neither tokens nor cost', () =>
    given()
      .when({
        type: 'IssueApiKey',
        ...issuedData,
        usageLimit: { tokens: null, costUsd: null, window: 'day' },
      })
      .thenThrows('invalid_usage_limit'));

  it('changes grants and limits as separate facts', () =>
    given(issued)
      .when({
        type: 'ChangeApiKey',
        apiKeyId: 'k1',
        agentAccess: { kind: 'agents', agentIds: ['a1'] },
        usageLimit: { tokens: 1000, costUsd: null, window: 'week' },
      })
      .then([
        {
          type: 'ApiKeyAgentAccessChanged',
          data: { apiKeyId: 'k1', agentAccess: { kind: 'agents', agentIds: ['a1'] } },
        },
        {
          type: 'ApiKeyUsageLimitChanged',
          data: { apiKeyId: 'k1', usageLimit: { tokens: 1000, costUsd: null, window: 'week' } },
        },
      ]));

  it('sets a limit only where there is none when asked to (POST /cost-control), else 409', () => {
    const limit = { tokens: 1000, costUsd: null, window: 'day' } as const;
    given(issued)
      .when({ type: 'ChangeApiKey', apiKeyId: 'k1', usageLimit: limit, onlyIfNoUsageLimit: true })
      .then([{ type: 'ApiKeyUsageLimitChanged', data: { apiKeyId: 'k1', usageLimit: limit } }]);
    given(issued, { type: 'ApiKeyUsageLimitChanged', data: { apiKeyId: 'k1', usageLimit: limit } })
      .when({ type: 'ChangeApiKey', apiKeyId: 'k1', usageLimit: limit, onlyIfNoUsageLimit: true })
      .thenThrows('usage_limit_exists');
  });

  it('revokes once; a revoked key cannot be changed', () => {
    given(issued)
      .when({ type: 'RevokeApiKey', apiKeyId: 'k1' })
      .then([{ type: 'ApiKeyRevoked', data: { apiKeyId: 'k1' } }]);
    given(issued, { type: 'ApiKeyRevoked', data: { apiKeyId: 'k1' } })
      .when({ type: 'RevokeApiKey', apiKeyId: 'k1' })
      .then([]);
    given(issued, { type: 'ApiKeyRevoked', data: { apiKeyId: 'k1' } })
      .when({ type: 'ChangeApiKey', apiKeyId: 'k1', name: 'x' })
      .thenThrows('api_key_not_found');
  });
});

describe('User decider', () => {
  it('registers a user with a lower-cased email, once', () => {
    const command = {
      type: 'RegisterUser',
      userId: 'u1',
      email: 'Ada@Example.com',
      name: '',
      role: 'member',
    } as const;
    const [event] = userDecider.decide(command, userDecider.initialState());
    expect(event).toEqual({
      type: 'UserRegistered',
      data: { userId: 'u1', email: 'ada@example.com', name: 'Ada', role: 'member' },
    });
    expect(userDecider.decide(command, userDecider.evolve(userDecider.initialState(), event!))).toEqual([]);
    expect(() => userDecider.decide({ ...command, email: 'nope' }, userDecider.initialState())).toThrow(
      expect.objectContaining({ code: 'invalid_email' }),
    );
  });
});
