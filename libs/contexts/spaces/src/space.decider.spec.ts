import { spaceDecider } from './space.decider.js';
import type { SpaceEvent } from './space.events.js';
import { deciderSpec } from '#testing/decider-spec';

const given = deciderSpec(spaceDecider);

const created: SpaceEvent = {
  type: 'SpaceCreated',
  data: { spaceId: 's1', name: 'Research', slug: 'research', description: '', color: '#112233' },
};

describe('Space decider', () => {
  it('creates a space with a trimmed name', () =>
    given()
      .when({
        type: 'CreateSpace',
        spaceId: 's1',
        name: '  Research ',
        slug: 'research',
        description: '',
        color: '#112233',
      })
      .then([created]));

  it('refuses a slug with capitals, spaces or edge hyphens', () => {
    for (const slug of ['Research', 'my space', '-lead', 'trail-', 'a--b', 'ümlaut'])
      given()
        .when({ type: 'CreateSpace', spaceId: 's1', name: 'R', slug, description: '', color: '#112233' })
        .thenThrows('invalid_slug');
  });

  it('refuses to create a space twice', () =>
    given(created)
      .when({ type: 'CreateSpace', spaceId: 's1', name: 'X', slug: 'x', description: '', color: '#112233' })
      .thenThrows('space_exists'));

  it('records only the facts that changed', () =>
    given(created)
      .when({ type: 'ChangeSpace', spaceId: 's1', name: 'Research', slug: 'lab', color: '#abcdef' })
      .then([
        { type: 'SpaceSlugChanged', data: { spaceId: 's1', slug: 'lab' } },
        { type: 'SpaceColorChanged', data: { spaceId: 's1', color: '#abcdef' } },
      ]));

  it('changes nothing when nothing differs', () =>
    given(created).when({ type: 'ChangeSpace', spaceId: 's1', description: '' }).then([]));

  it('cannot change a deleted or unknown space', () => {
    given(created, { type: 'SpaceDeleted', data: { spaceId: 's1' } })
      .when({ type: 'ChangeSpace', spaceId: 's1', name: 'Y' })
      .thenThrows('space_not_found');
    given().when({ type: 'ChangeSpace', spaceId: 's1', name: 'Y' }).thenThrows('space_not_found');
  });

  it('deletes once; deleting again is a no-op', () => {
    given(created)
      .when({ type: 'DeleteSpace', spaceId: 's1' })
      .then([{ type: 'SpaceDeleted', data: { spaceId: 's1' } }]);
    given(created, { type: 'SpaceDeleted', data: { spaceId: 's1' } })
      .when({ type: 'DeleteSpace', spaceId: 's1' })
      .then([]);
  });

  describe('members', () => {
    const member = (userId: string, role: 'owner' | 'editor' | 'member'): SpaceEvent => ({
      type: 'SpaceMemberAdded',
      data: { spaceId: 's1', userId, role },
    });

    it('the creator of a new Space is its owner', () =>
      given()
        .when({
          type: 'CreateSpace',
          spaceId: 's1',
          name: 'Research',
          slug: 'research',
          description: '',
          color: '#112233',
          ownerUserId: 'u1',
        })
        .then([created, member('u1', 'owner')]));

    it('adds a member once; the same role again changes nothing; another role is a conflict', () => {
      given(created, member('u1', 'owner'))
        .when({ type: 'AddSpaceMember', spaceId: 's1', userId: 'u2', role: 'editor' })
        .then([member('u2', 'editor')]);
      given(created, member('u1', 'owner'), member('u2', 'editor'))
        .when({ type: 'AddSpaceMember', spaceId: 's1', userId: 'u2', role: 'editor' })
        .then([]);
      given(created, member('u1', 'owner'), member('u2', 'editor'))
        .when({ type: 'AddSpaceMember', spaceId: 's1', userId: 'u2', role: 'member' })
        .thenThrows('space_member_exists');
    });

    it('the last owner cannot leave or be demoted; one of two owners can', () => {
      given(created, member('u1', 'owner'), member('u2', 'member'))
        .when({ type: 'RemoveSpaceMember', spaceId: 's1', userId: 'u1' })
        .thenThrows('last_owner');
      given(created, member('u1', 'owner'))
        .when({ type: 'ChangeSpaceMemberRole', spaceId: 's1', userId: 'u1', role: 'editor' })
        .thenThrows('last_owner');
      given(created, member('u1', 'owner'), member('u2', 'owner'))
        .when({ type: 'ChangeSpaceMemberRole', spaceId: 's1', userId: 'u1', role: 'editor' })
        .then([{ type: 'SpaceMemberRoleChanged', data: { spaceId: 's1', userId: 'u1', role: 'editor' } }]);
    });

    it('removes a member; removing a non-member changes nothing', () => {
      given(created, member('u1', 'owner'), member('u2', 'member'))
        .when({ type: 'RemoveSpaceMember', spaceId: 's1', userId: 'u2' })
        .then([{ type: 'SpaceMemberRemoved', data: { spaceId: 's1', userId: 'u2' } }]);
      given(created, member('u1', 'owner'))
        .when({ type: 'RemoveSpaceMember', spaceId: 's1', userId: 'u9' })
        .then([]);
    });

    it('a Space from before members records its creator as owner with the first change, and keeps them', () => {
      given(created)
        .when({ type: 'AddSpaceMember', spaceId: 's1', userId: 'u2', role: 'member', creatorUserId: 'u1' })
        .then([member('u1', 'owner'), member('u2', 'member')]);
      given(created)
        .when({ type: 'RemoveSpaceMember', spaceId: 's1', userId: 'u1', creatorUserId: 'u1' })
        .thenThrows('last_owner');
    });

    it('changes no membership of a deleted Space', () =>
      given(created, member('u1', 'owner'), { type: 'SpaceDeleted', data: { spaceId: 's1' } })
        .when({ type: 'AddSpaceMember', spaceId: 's1', userId: 'u2', role: 'member' })
        .thenThrows('space_not_found'));
  });

  describe('the private personal Space', () => {
    const personal: SpaceEvent = {
      type: 'SpaceCreated',
      data: {
        spaceId: 's1',
        name: 'Personal',
        slug: 'personal-1',
        description: '',
        color: '#6366f1',
        personalOf: 'u1',
      },
    };
    const owner: SpaceEvent = {
      type: 'SpaceMemberAdded',
      data: { spaceId: 's1', userId: 'u1', role: 'owner' },
    };

    it('is created once, its user its owner', () => {
      given()
        .when({
          type: 'CreatePersonalSpace',
          spaceId: 's1',
          userId: 'u1',
          name: 'Personal',
          slug: 'personal-1',
        })
        .then([personal, owner]);
      given(personal, owner)
        .when({
          type: 'CreatePersonalSpace',
          spaceId: 's1',
          userId: 'u1',
          name: 'Personal',
          slug: 'personal-1',
        })
        .then([]);
    });

    it('is never shared, deleted, renamed or given another slug', () => {
      given(personal, owner)
        .when({ type: 'AddSpaceMember', spaceId: 's1', userId: 'u2', role: 'member' })
        .thenThrows('personal_space_unshareable');
      given(personal, owner)
        .when({ type: 'DeleteSpace', spaceId: 's1' })
        .thenThrows('personal_space_undeletable');
      given(personal, owner)
        .when({ type: 'ChangeSpace', spaceId: 's1', slug: 'research' })
        .thenThrows('personal_space_locked');
      given(personal, owner)
        .when({ type: 'ChangeSpace', spaceId: 's1', name: 'Research' })
        .thenThrows('personal_space_locked');
      given(personal, owner)
        .when({ type: 'ChangeSpace', spaceId: 's1', description: 'mine' })
        .then([{ type: 'SpaceDescriptionChanged', data: { spaceId: 's1', description: 'mine' } }]);
    });
  });
});
