import { projectionHarness } from '#testing/projection-harness';
import { SPACE_MEMBERS, SPACES } from '#spaces';
import { spacesProjector } from './spaces.projector.js';

const created = {
  type: 'SpaceCreated',
  data: { spaceId: 's1', name: 'Research', slug: 'research', description: 'R&D', color: '#123456' },
};

describe('spaces projection', () => {
  it('creates, renames and recolours a Space document', async () => {
    const h = await projectionHarness(spacesProjector);
    const e1 = h.envelope(created);
    const e2 = h.envelope({ type: 'SpaceRenamed', data: { spaceId: 's1', name: 'Lab' } });
    const e3 = h.envelope({ type: 'SpaceColorChanged', data: { spaceId: 's1', color: '#000000' } });
    await h.apply(e1, e2, e3);
    expect(await h.get(SPACES, 's1')).toEqual({
      id: 's1',
      createdByApiKeyId: null,
      createdByUserId: null,
      name: 'Lab',
      slug: 'research',
      description: 'R&D',
      color: '#000000',
      createdAt: e1.metadata.occurredAt,
      updatedAt: e3.metadata.occurredAt,
    });
  });

  it('the same event twice changes nothing, even after a later change', async () => {
    const h = await projectionHarness(spacesProjector);
    const e1 = h.envelope(created);
    const e2 = h.envelope({ type: 'SpaceRenamed', data: { spaceId: 's1', name: 'Lab' } });
    await h.apply(e1, e2);
    await h.apply(e1);
    await h.apply(e2);
    expect(await h.get(SPACES, 's1')).toMatchObject({
      name: 'Lab',
      slug: 'research',
      updatedAt: e2.metadata.occurredAt,
    });
  });

  it('deletes the Space document', async () => {
    const h = await projectionHarness(spacesProjector);
    await h.apply(h.envelope(created), h.envelope({ type: 'SpaceDeleted', data: { spaceId: 's1' } }));
    expect(await h.get(SPACES, 's1')).toBeNull();
  });

  it('records who created the Space: the API key, or the user signed in (a session)', async () => {
    const h = await projectionHarness(spacesProjector);
    const byKey = h.envelope(created);
    const bySession = h.envelope({ ...created, data: { ...created.data, spaceId: 's2', slug: 'other' } });
    await h.apply(
      { ...byKey, metadata: { ...byKey.metadata, actor: { kind: 'apiKey', id: 'key_1' } } },
      { ...bySession, metadata: { ...bySession.metadata, actor: { kind: 'user', id: 'usr_1' } } },
    );
    expect(await h.get(SPACES, 's1')).toMatchObject({ createdByApiKeyId: 'key_1', createdByUserId: null });
    expect(await h.get(SPACES, 's2')).toMatchObject({ createdByApiKeyId: null, createdByUserId: 'usr_1' });
  });

  it('keeps the members map on the Space and one document per membership; removal and deletion drop them', async () => {
    const h = await projectionHarness(spacesProjector);
    const add = h.envelope({
      type: 'SpaceMemberAdded',
      data: { spaceId: 's1', userId: 'u1', role: 'owner' },
    });
    const add2 = h.envelope({
      type: 'SpaceMemberAdded',
      data: { spaceId: 's1', userId: 'u2', role: 'member' },
    });
    const promote = h.envelope({
      type: 'SpaceMemberRoleChanged',
      data: { spaceId: 's1', userId: 'u2', role: 'editor' },
    });
    await h.apply(h.envelope(created), add, add2, promote);
    expect(await h.get(SPACES, 's1')).toMatchObject({ members: { u1: 'owner', u2: 'editor' } });
    expect(await h.get(SPACE_MEMBERS, 's1:u2')).toMatchObject({
      spaceId: 's1',
      userId: 'u2',
      role: 'editor',
      addedAt: add2.metadata.occurredAt,
    });
    await h.apply(h.envelope({ type: 'SpaceMemberRemoved', data: { spaceId: 's1', userId: 'u2' } }));
    expect(((await h.get(SPACES, 's1')) as { members?: unknown } | null)?.members).toEqual({ u1: 'owner' });
    expect(await h.get(SPACE_MEMBERS, 's1:u2')).toBeNull();
    await h.apply(h.envelope({ type: 'SpaceDeleted', data: { spaceId: 's1' } }));
    expect(await h.get(SPACE_MEMBERS, 's1:u1')).toBeNull();
  });
});
