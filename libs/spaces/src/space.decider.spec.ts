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
});
