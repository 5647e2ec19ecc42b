import { deciderSpec } from '#testing/decider-spec';
import type { UserSpendEvent, UserSpendLimit } from './user-spend.js';
import { userSpendDecider } from './user-spend.decider.js';

const given = deciderSpec(userSpendDecider);
const limit: UserSpendLimit = { tokens: 1000, costUsd: null, overage: 'block' };
const changed = (to: UserSpendLimit | null): UserSpendEvent => ({
  type: 'UserSpendLimitChanged',
  data: { userId: 'usr_1', limit: to },
});

describe("a user's spend limit (decider)", () => {
  it('records a change, nothing for the same limit, and a removal', () => {
    given()
      .when({ userId: 'usr_1', limit })
      .then([changed(limit)]);
    given(changed(limit))
      .when({ userId: 'usr_1', limit: { ...limit } })
      .then([]);
    given(changed(limit))
      .when({ userId: 'usr_1', limit: { ...limit, overage: 'allow' } })
      .then([changed({ ...limit, overage: 'allow' })]);
    given(changed(limit))
      .when({ userId: 'usr_1', limit: null })
      .then([changed(null)]);
  });

  it('refuses a limit with neither tokens nor cost', () =>
    given()
      .when({ userId: 'usr_1', limit: { tokens: null, costUsd: null, overage: 'allow' } })
      .thenThrows('invalid_usage_limit'));
});
