import { projectionHarness } from '#testing/projection-harness';
import { API_KEYS } from '#identity';
import { apiKeysProjector } from './api-keys.projector.js';

describe('api-keys projection', () => {
  it('records issue and revocation, idempotently', async () => {
    const h = await projectionHarness(apiKeysProjector);
    const issued = h.envelope({
      type: 'ApiKeyIssued',
      data: {
        apiKeyId: 'k1',
        name: 'ci',
        ownerUserId: 'u1',
        keyHash: 'abc',
        keyPrefix: 'ap_x',
        agentAccess: { kind: 'all' },
        isAdmin: false,
        usageLimit: null,
        bootstrap: false,
      },
    });
    const revoked = h.envelope({ type: 'ApiKeyRevoked', data: { apiKeyId: 'k1' } });
    await h.apply(issued, revoked);
    await h.apply(issued, revoked);
    expect(await h.get(API_KEYS, 'k1')).toMatchObject({
      name: 'ci',
      keyHash: 'abc',
      revoked: true,
      revokedAt: revoked.metadata.occurredAt,
    });
  });
});
