import { projectionHarness } from '#testing/projection-harness';
import {
  MEMORIES,
  MEMORY_PROPOSALS,
  type MemoryProposalView,
  type MemoryView,
} from '#memory/memory.read-model';
import { memoryProjector } from './memory.projector.js';

const bucket = { agentId: 'a1', owner: 'u1' };
const api = { kind: 'api', conversationId: null, messageId: null };
const extracted = { kind: 'extraction', conversationId: 'c1', messageId: 'm1' };

const added = (memoryId: string, on = bucket) => ({
  type: 'MemoryAdded',
  data: {
    ...on,
    bucket: on.owner === 'shared' ? 'shared' : 'personal',
    memoryId,
    text: `sealed-${memoryId}`,
    source: extracted,
    addedBy: 'u1',
  },
});
const revised = (memoryId: string, version: number, revisedBy: string | null = 'u1') => ({
  type: 'MemoryRevised',
  data: {
    ...bucket,
    memoryId,
    version,
    text: `sealed-${memoryId}-v${version}`,
    source: api,
    revisedBy,
    reason: revisedBy ? 'edited' : 'superseded',
  },
});
const rolledBack = (memoryId: string, version: number, toVersion: number) => ({
  type: 'MemoryRolledBack',
  data: {
    ...bucket,
    memoryId,
    version,
    toVersion,
    text: `resealed-${memoryId}-v${toVersion}`,
    rolledBackBy: 'u2',
  },
});
const recalled = (memoryIds: string[], messageId: string) => ({
  type: 'MemoriesRecalled',
  data: { ...bucket, memoryIds, conversationId: 'c1', messageId },
});
const proposed = {
  type: 'MemoryProposed',
  data: {
    proposalId: 'p1',
    agentId: 'a1',
    userId: 'u1',
    text: 'sealed-fact',
    conversationId: 'c1',
    messageId: 'm1',
  },
};

describe('memory projection', () => {
  it('builds a personal memory document from MemoryAdded', async () => {
    const h = await projectionHarness(memoryProjector);
    const e1 = h.envelope(added('x1'));
    await h.apply(e1);
    const at = e1.metadata.occurredAt;
    expect(await h.get<MemoryView>(MEMORIES, 'x1')).toEqual({
      id: 'x1',
      agentId: 'a1',
      owner: 'u1',
      bucket: 'personal',
      userId: 'u1',
      text: 'sealed-x1',
      version: 1,
      versions: [
        {
          version: 1,
          text: 'sealed-x1',
          source: extracted,
          by: 'u1',
          at,
          reason: 'added',
          rolledBackTo: null,
        },
      ],
      lastUsedAt: at,
      createdAt: at,
      updatedAt: at,
    });
  });

  it('leaves userId null on a shared memory', async () => {
    const h = await projectionHarness(memoryProjector);
    await h.apply(h.envelope(added('x1', { agentId: 'a1', owner: 'shared' })));
    expect(await h.get<MemoryView>(MEMORIES, 'x1')).toMatchObject({
      owner: 'shared',
      bucket: 'shared',
      userId: null,
    });
  });

  it('keeps every version: revisions, a superseded fact and a rollback (with the old version’s source)', async () => {
    const h = await projectionHarness(memoryProjector);
    const e1 = h.envelope(added('x1'));
    const e2 = h.envelope(revised('x1', 2));
    const e3 = h.envelope(revised('x1', 3, null));
    await h.apply(e1, e2);
    const e4 = h.envelope(rolledBack('x1', 4, 1));
    await h.apply(e3);
    await h.apply(e4);
    const memory = await h.get<MemoryView>(MEMORIES, 'x1');
    expect(memory).toMatchObject({
      text: 'resealed-x1-v1',
      version: 4,
      createdAt: e1.metadata.occurredAt,
      updatedAt: e4.metadata.occurredAt,
      lastUsedAt: e4.metadata.occurredAt,
    });
    expect(memory?.versions).toEqual([
      expect.objectContaining({ version: 1, text: 'sealed-x1', by: 'u1', reason: 'added' }),
      {
        version: 2,
        text: 'sealed-x1-v2',
        source: api,
        by: 'u1',
        at: e2.metadata.occurredAt,
        reason: 'edited',
        rolledBackTo: null,
      },
      expect.objectContaining({ version: 3, by: null, reason: 'superseded' }),
      {
        version: 4,
        text: 'resealed-x1-v1',
        source: extracted,
        by: 'u2',
        at: e4.metadata.occurredAt,
        reason: 'rolled_back',
        rolledBackTo: 1,
      },
    ]);
  });

  it('refreshes lastUsedAt of each recalled memory and keeps no recall rows (the provenance read model lists answers)', async () => {
    const h = await projectionHarness(memoryProjector);
    const e1 = h.envelope(added('x1'));
    const e2 = h.envelope(added('x2'));
    const e3 = h.envelope(recalled(['x1', 'x2'], 'm2'));
    const e4 = h.envelope(recalled(['x1'], 'm4'));
    await h.apply(e1, e2, e3);
    await h.apply(e4);
    expect(memoryProjector.collections.map((collection) => collection.name)).toEqual([
      MEMORIES,
      MEMORY_PROPOSALS,
    ]);
    expect(await h.get<MemoryView>(MEMORIES, 'x1')).toMatchObject({
      lastUsedAt: e4.metadata.occurredAt,
      updatedAt: e1.metadata.occurredAt,
    });
    expect(await h.get<MemoryView>(MEMORIES, 'x2')).toMatchObject({ lastUsedAt: e3.metadata.occurredAt });
  });

  it('removes the document of a retired, a deleted and every cleared memory', async () => {
    const h = await projectionHarness(memoryProjector);
    await h.apply(...['x1', 'x2', 'x3', 'x4', 'x5'].map((id) => h.envelope(added(id))));
    await h.apply(
      h.envelope({ type: 'MemoryRetired', data: { ...bucket, memoryId: 'x1', reason: 'cap_reached' } }),
      h.envelope({ type: 'MemoryDeleted', data: { ...bucket, memoryId: 'x2', reason: 'requested' } }),
    );
    expect(await h.get(MEMORIES, 'x1')).toBeNull();
    expect(await h.get(MEMORIES, 'x2')).toBeNull();
    expect(await h.count(MEMORIES)).toBe(3);
    await h.apply(
      h.envelope({
        type: 'MemoryBucketCleared',
        data: { ...bucket, memoryIds: ['x3', 'x4', 'x5'], clearedBy: 'u1', reason: 'requested' },
      }),
    );
    expect(await h.count(MEMORIES)).toBe(0);
  });

  it('applying the same events twice changes nothing', async () => {
    const h = await projectionHarness(memoryProjector);
    const events = [
      h.envelope(added('x1')),
      h.envelope(added('x2')),
      h.envelope(added('x3')),
      h.envelope(revised('x1', 2)),
      h.envelope(recalled(['x1', 'x3'], 'm2')),
      h.envelope(rolledBack('x1', 3, 1)),
      h.envelope({ type: 'MemoryDeleted', data: { ...bucket, memoryId: 'x2', reason: 'requested' } }),
      h.envelope(proposed),
      h.envelope({ type: 'MemoryProposalConfirmed', data: { proposalId: 'p1', memoryId: 'x9' } }),
    ];
    await h.apply(...events);
    const read = () =>
      Promise.all([h.get(MEMORIES, 'x1'), h.get(MEMORIES, 'x3'), h.get(MEMORY_PROPOSALS, 'p1')]);
    const before = await read();
    await h.apply(...events);
    for (const event of events) await h.apply(event);
    expect(await read()).toEqual(before);
    expect(await h.get(MEMORIES, 'x2')).toBeNull();
    expect(await h.count(MEMORIES)).toBe(2);
    const memory = before[0] as MemoryView;
    expect(memory.versions.map((version) => version.version)).toEqual([1, 2, 3]);
    expect(before[2]).toMatchObject({ state: 'confirmed', memoryId: 'x9' });
  });

  describe('proposals', () => {
    it('builds a pending proposal from MemoryProposed', async () => {
      const h = await projectionHarness(memoryProjector);
      const e1 = h.envelope(proposed);
      await h.apply(e1);
      expect(await h.get<MemoryProposalView>(MEMORY_PROPOSALS, 'p1')).toEqual({
        id: 'p1',
        agentId: 'a1',
        userId: 'u1',
        text: 'sealed-fact',
        state: 'pending',
        memoryId: null,
        flagReasons: [],
        conversationId: 'c1',
        messageId: 'm1',
        createdAt: e1.metadata.occurredAt,
        answeredAt: null,
      });
    });

    it.each([
      [
        'confirmed',
        { type: 'MemoryProposalConfirmed', data: { proposalId: 'p1', memoryId: 'x9' } },
        'x9',
        [],
      ],
      [
        'kept_personal',
        { type: 'MemoryProposalKeptPersonal', data: { proposalId: 'p1', memoryId: 'x9' } },
        'x9',
        [],
      ],
      ['discarded', { type: 'MemoryProposalDiscarded', data: { proposalId: 'p1' } }, null, []],
      [
        'flagged',
        { type: 'MemoryProposalFlagged', data: { proposalId: 'p1', reasons: ['personal_data'] } },
        null,
        ['personal_data'],
      ],
    ])('records the answer: %s', async (state, answer, memoryId, flagReasons) => {
      const h = await projectionHarness(memoryProjector);
      await h.apply(h.envelope(proposed));
      const e2 = h.envelope(answer);
      await h.apply(e2);
      expect(await h.get<MemoryProposalView>(MEMORY_PROPOSALS, 'p1')).toMatchObject({
        state,
        memoryId,
        flagReasons,
        answeredAt: e2.metadata.occurredAt,
      });
    });
  });
});
