import { spaceCreationDecider } from './space-creation.decider.js';
import { deciderSpec } from '#testing/decider-spec';

const given = deciderSpec(spaceCreationDecider);

describe('who may create Spaces (the instance setting)', () => {
  it('records the roles, in a stable order', () =>
    given()
      .when({ type: 'SetSpaceCreationRoles', creatorRoles: ['member', 'admin'] })
      .then([{ type: 'SpaceCreationRolesSet', data: { creatorRoles: ['admin', 'member'] } }]));

  it('changes nothing when the roles are the same', () =>
    given({ type: 'SpaceCreationRolesSet', data: { creatorRoles: ['admin'] } })
      .when({ type: 'SetSpaceCreationRoles', creatorRoles: ['admin', 'admin'] })
      .then([]));

  it('records admins only', () =>
    given({ type: 'SpaceCreationRolesSet', data: { creatorRoles: ['admin', 'member'] } })
      .when({ type: 'SetSpaceCreationRoles', creatorRoles: [] })
      .then([{ type: 'SpaceCreationRolesSet', data: { creatorRoles: [] } }]));
});
