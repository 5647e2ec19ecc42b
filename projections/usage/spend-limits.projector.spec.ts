import { projectionHarness } from '#testing/projection-harness';
import { SPEND_LIMITS, spendLimitId } from '#usage';
import { spendLimitsProjector } from './spend-limits.projector.js';

const LIMIT = { tokens: 100, costUsd: null, overage: 'block' };

describe('spend limits projection', () => {
  it("keeps each user's and Space's current limit, null once removed", async () => {
    const h = await projectionHarness(spendLimitsProjector);
    await h.apply(
      h.envelope({ type: 'UserSpendLimitChanged', data: { userId: 'usr_1', limit: LIMIT } }),
      h.envelope({ type: 'SpaceSpendLimitChanged', data: { spaceId: 'spc_1', limit: LIMIT } }),
      h.envelope({ type: 'UserSpendLimitChanged', data: { userId: 'usr_1', limit: null } }),
    );
    expect(await h.get(SPEND_LIMITS, spendLimitId('user', 'usr_1'))).toMatchObject({
      scope: 'user',
      subject: 'usr_1',
      limit: null,
    });
    expect(await h.get(SPEND_LIMITS, spendLimitId('space', 'spc_1'))).toMatchObject({
      scope: 'space',
      subject: 'spc_1',
      limit: LIMIT,
    });
  });
});
