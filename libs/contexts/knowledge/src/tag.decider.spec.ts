import { tagDecider } from './tag.decider.js';
import type { TagEvent } from './tag.events.js';
import { deciderSpec } from '#testing/decider-spec';

const given = deciderSpec(tagDecider);

const created: TagEvent = {
  type: 'KnowledgeTagCreated',
  data: { tagId: 't1', agentId: 'a1', name: 'Policies', color: '#112233' },
};

describe('knowledge tag decider', () => {
  it('creates a tag with a trimmed name and a hex colour', () => {
    given()
      .when({ type: 'CreateTag', tagId: 't1', agentId: 'a1', name: ' Policies ', color: '#112233' })
      .then([created]);
    given()
      .when({ type: 'CreateTag', tagId: 't1', agentId: 'a1', name: 'x', color: 'red' })
      .thenThrows('invalid_color');
    given()
      .when({ type: 'CreateTag', tagId: 't1', agentId: 'a1', name: '', color: '#fff' })
      .thenThrows('invalid_name');
    given(created)
      .when({ type: 'CreateTag', tagId: 't1', agentId: 'a1', name: 'x', color: '#fff' })
      .thenThrows('tag_exists');
  });

  it('renames and recolours only what changed, and deletes', () => {
    given(created)
      .when({ type: 'ChangeTag', tagId: 't1', name: 'Policies', color: '#445566' })
      .then([{ type: 'KnowledgeTagRecolored', data: { tagId: 't1', color: '#445566' } }]);
    given(created)
      .when({ type: 'DeleteTag', tagId: 't1' })
      .then([{ type: 'KnowledgeTagDeleted', data: { tagId: 't1' } }]);
    given(created, { type: 'KnowledgeTagDeleted', data: { tagId: 't1' } })
      .when({ type: 'ChangeTag', tagId: 't1', name: 'x' })
      .thenThrows('tag_not_found');
  });

  it('deletes once: again, a client gets 404 and the owner-deletion cascade nothing', () => {
    const deleted = { type: 'KnowledgeTagDeleted', data: { tagId: 't1' } } as const;
    given(created, deleted)
      .when({ type: 'DeleteTag', tagId: 't1', reason: 'requested' })
      .thenThrows('tag_not_found');
    given(created, deleted).when({ type: 'DeleteTag', tagId: 't1', reason: 'owner_deleted' }).then([]);
    given().when({ type: 'DeleteTag', tagId: 't1', reason: 'owner_deleted' }).then([]);
  });
});
