import { deciderSpec } from '#testing/decider-spec';
import { type SpaceSpendEvent } from './space-spend.js';
import { spaceSpendDecider } from './space-spend.decider.js';

const given = deciderSpec(spaceSpendDecider);
const limit = { tokens: 1000, costUsd: null, overage: 'block' as const };
const setBy = (by: 'admin' | 'owner'): SpaceSpendEvent => ({
  type: 'SpaceSpendLimitChanged',
  data: { spaceId: 's1', limit, setBy: by },
});

describe('Space spend limit (decider)', () => {
  it('records who set a limit', () =>
    given()
      .when({ spaceId: 's1', limit, by: 'admin' })
      .then([setBy('admin')]));

  it('only an admin changes or removes a limit an admin set; owners change their own', () => {
    given(setBy('admin'))
      .when({ spaceId: 's1', limit: null, by: 'owner' })
      .thenThrows('spend_limit_set_by_admin');
    given(setBy('admin'))
      .when({ spaceId: 's1', limit: { ...limit, tokens: 10 ** 9 }, by: 'owner' })
      .thenThrows('spend_limit_set_by_admin');
    given(setBy('admin'))
      .when({ spaceId: 's1', limit: null, by: 'admin' })
      .then([{ type: 'SpaceSpendLimitChanged', data: { spaceId: 's1', limit: null, setBy: 'admin' } }]);
    given(setBy('owner'))
      .when({ spaceId: 's1', limit: null, by: 'owner' })
      .then([{ type: 'SpaceSpendLimitChanged', data: { spaceId: 's1', limit: null, setBy: 'owner' } }]);
    // Once removed, the owners may set one again; a limit recorded before `setBy` was kept is the owners'.
    given(setBy('admin'), {
      type: 'SpaceSpendLimitChanged',
      data: { spaceId: 's1', limit: null, setBy: 'admin' },
    })
      .when({ spaceId: 's1', limit, by: 'owner' })
      .then([setBy('owner')]);
    given({ type: 'SpaceSpendLimitChanged', data: { spaceId: 's1', limit } })
      .when({ spaceId: 's1', limit: null, by: 'owner' })
      .then([{ type: 'SpaceSpendLimitChanged', data: { spaceId: 's1', limit: null, setBy: 'owner' } }]);
  });
});
