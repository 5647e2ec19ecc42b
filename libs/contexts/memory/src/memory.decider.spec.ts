import { MemoryNotFoundError, memoryBucketDecider, type MemoryBucketCommand } from './memory.decider.js';
import { memoryBucketStreamId, type MemoryEvent, type MemorySource } from './memory.events.js';
import { deciderSpec } from '#testing/decider-spec';

const given = deciderSpec(memoryBucketDecider);

const bucket = { agentId: 'a1', owner: 'u1' };
const shared = { agentId: 'a1', owner: 'shared' };
const api: MemorySource = { kind: 'api', conversationId: null, messageId: null };
const extracted: MemorySource = { kind: 'extraction', conversationId: 'c1', messageId: 'm1' };

const added = (memoryId: string, on = bucket): MemoryEvent => ({
  type: 'MemoryAdded',
  data: {
    ...on,
    bucket: on.owner === 'shared' ? 'shared' : 'personal',
    memoryId,
    text: `sealed-${memoryId}`,
    source: api,
    addedBy: 'u1',
  },
});
const add = (memoryId: string, cap = 3, on = bucket): MemoryBucketCommand => ({
  type: 'AddMemory',
  ...on,
  memoryId,
  text: `sealed-${memoryId}`,
  source: api,
  addedBy: 'u1',
  cap,
});
const retired = (memoryId: string): MemoryEvent => ({
  type: 'MemoryRetired',
  data: { ...bucket, memoryId, reason: 'cap_reached' },
});
const recalled = (memoryIds: string[], messageId = 'm2'): MemoryEvent => ({
  type: 'MemoriesRecalled',
  data: { ...bucket, memoryIds, conversationId: 'c1', messageId },
});
const recall = (memoryIds: string[], messageId = 'm2'): MemoryBucketCommand => ({
  type: 'RecordRecall',
  ...bucket,
  memoryIds,
  conversationId: 'c1',
  messageId,
});
const revised = (
  memoryId: string,
  version: number,
  text = `sealed-${memoryId}-v${version}`,
): MemoryEvent => ({
  type: 'MemoryRevised',
  data: { ...bucket, memoryId, version, text, source: api, revisedBy: 'u1', reason: 'edited' },
});
const revise = (memoryId: string, text: string): MemoryBucketCommand => ({
  type: 'ReviseMemory',
  ...bucket,
  memoryId,
  text,
  source: api,
  revisedBy: 'u1',
  reason: 'edited',
});
const rollBack = (memoryId: string, toVersion: number): MemoryBucketCommand => ({
  type: 'RollBackMemory',
  ...bucket,
  memoryId,
  toVersion,
  text: `resealed-${memoryId}-v${toVersion}`,
  rolledBackBy: 'u1',
});
const deleted = (memoryId: string): MemoryEvent => ({
  type: 'MemoryDeleted',
  data: { ...bucket, memoryId, reason: 'requested' },
});
const del = (memoryId: string, reason: 'requested' | 'agent_deleted' = 'requested'): MemoryBucketCommand => ({
  type: 'DeleteMemory',
  ...bucket,
  memoryId,
  reason,
});
const cleared = (memoryIds: string[]): MemoryEvent => ({
  type: 'MemoryBucketCleared',
  data: { ...bucket, memoryIds, clearedBy: 'u1', reason: 'requested' },
});
const clear: MemoryBucketCommand = { type: 'ClearBucket', ...bucket, clearedBy: 'u1', reason: 'requested' };
const flag = (candidateId: string, reasons = ['credential']): MemoryBucketCommand => ({
  type: 'RecordFlagged',
  ...bucket,
  candidateId,
  reasons,
  source: extracted,
  flaggedBy: null,
});

describe('Memory bucket decider', () => {
  it('names one stream per Agent and owner', () => {
    expect(memoryBucketStreamId('a1', 'u1')).toBe('memory-bucket-a1-u1');
    expect(memoryBucketStreamId('a1', 'shared')).toBe('memory-bucket-a1-shared');
  });

  describe('AddMemory', () => {
    it('adds a personal memory, and a shared one to the shared bucket', () => {
      given()
        .when(add('x1'))
        .then([added('x1')]);
      given()
        .when(add('x1', 3, shared))
        .then([added('x1', shared)]);
    });

    it('adds nothing when retried with the same memoryId, live or already gone', () => {
      given(added('x1')).when(add('x1')).then([]);
      given(added('x1'), deleted('x1')).when(add('x1')).then([]);
      given(added('x1'), added('x2'), retired('x1'), added('x3')).when(add('x1', 2)).then([]);
      given(added('x1'), cleared(['x1']))
        .when(add('x1'))
        .then([]);
    });

    it('adds without retiring while the bucket is below the cap', () =>
      given(added('x1'), added('x2'))
        .when(add('x3'))
        .then([added('x3')]));

    it('retires the least recently used memory of a full bucket, then adds', () =>
      given(added('x1'), added('x2'), added('x3'))
        .when(add('x4'))
        .then([retired('x1'), added('x4')]));

    it('counts a recall as a use: the memory recalled last stays', () =>
      given(added('x1'), added('x2'), added('x3'), recalled(['x1']))
        .when(add('x4'))
        .then([retired('x2'), added('x4')]));

    it('counts a revision and a rollback as a use', () => {
      given(added('x1'), added('x2'), added('x3'), revised('x1', 2))
        .when(add('x4'))
        .then([retired('x2'), added('x4')]);
      const rolledBack: MemoryEvent = {
        type: 'MemoryRolledBack',
        data: { ...bucket, memoryId: 'x2', version: 3, toVersion: 1, text: 'sealed', rolledBackBy: 'u1' },
      };
      given(added('x1'), added('x2'), revised('x2', 2), added('x3'), rolledBack, recalled(['x3']))
        .when(add('x4'))
        .then([retired('x1'), added('x4')]);
    });

    it('retires the oldest added of memories last used together (one recall)', () => {
      given(added('x1'), added('x2'), added('x3'), recalled(['x3', 'x2', 'x1']))
        .when(add('x4'))
        .then([retired('x1'), added('x4')]);
      given(added('x1'), added('x2'), added('x3'), recalled(['x3', 'x2']), recalled(['x1'], 'm3'))
        .when(add('x4'))
        .then([retired('x2'), added('x4')]);
    });

    it('does not count memories that left the bucket', () =>
      given(added('x1'), added('x2'), added('x3'), deleted('x1'))
        .when(add('x4'))
        .then([added('x4')]));

    it('retires as many as leave room for one when the cap was lowered', () =>
      given(added('x1'), added('x2'), added('x3'), added('x4'), recalled(['x1']))
        .when(add('x5', 2))
        .then([retired('x2'), retired('x3'), retired('x4'), added('x5')]));

    it('holds a cap of 1 with one memory', () =>
      given(added('x1'))
        .when(add('x2', 1))
        .then([retired('x1'), added('x2')]));

    it('refuses a cap below 1 or not whole', () => {
      given().when(add('x1', 0)).thenThrows('invalid_memory_cap');
      given().when(add('x1', 2.5)).thenThrows('invalid_memory_cap');
    });
  });

  describe("AddMemory to the shared bucket: a write never retires another contributor's memory", () => {
    const proposal: MemorySource = { kind: 'proposal', conversationId: 'c1', messageId: 'm1' };
    const sharedAdded = (memoryId: string, by: string, source = proposal): MemoryEvent => ({
      type: 'MemoryAdded',
      data: { ...shared, bucket: 'shared', memoryId, text: `sealed-${memoryId}`, source, addedBy: by },
    });
    const sharedAdd = (
      memoryId: string,
      by: string,
      { cap = 4, share = 2, source = proposal }: { cap?: number; share?: number; source?: MemorySource } = {},
    ): MemoryBucketCommand => ({
      type: 'AddMemory',
      ...shared,
      memoryId,
      text: `sealed-${memoryId}`,
      source,
      addedBy: by,
      cap,
      share,
    });
    const sharedRetired = (memoryId: string): MemoryEvent => ({
      type: 'MemoryRetired',
      data: { ...shared, memoryId, reason: 'cap_reached' },
    });

    it("retires the contributor's own oldest contribution beyond their share, not anyone else's", () => {
      given(
        sharedAdded('m1', 'mgr', api),
        sharedAdded('a1', 'ua'),
        sharedAdded('b1', 'ub'),
        sharedAdded('b2', 'ub'),
      )
        .when(sharedAdd('b3', 'ub', { cap: 10 }))
        .then([sharedRetired('b1'), sharedAdded('b3', 'ub')]);
    });

    it("at the bucket's cap retires the writer's own least recently used memory", () =>
      given(
        sharedAdded('m1', 'mgr', api),
        sharedAdded('a1', 'ua'),
        sharedAdded('b1', 'ub'),
        sharedAdded('a2', 'ua'),
      )
        .when(sharedAdd('b2', 'ub'))
        .then([sharedRetired('b1'), sharedAdded('b2', 'ub')]));

    it("refuses a contribution at the bucket's cap when nothing in it is the contributor's", () =>
      given(
        sharedAdded('m1', 'mgr', api),
        sharedAdded('a1', 'ua'),
        sharedAdded('a2', 'ua'),
        sharedAdded('c1', 'uc'),
      )
        .when(sharedAdd('b1', 'ub'))
        .thenThrows('shared_memory_full'));

    it("keeps the manager's direct writes out of every share; at the cap they retire only the writer's own", () => {
      // Direct writes do not count in the manager's share (3 direct, share 2: nothing retired below the cap).
      given(sharedAdded('m1', 'mgr', api), sharedAdded('m2', 'mgr', api), sharedAdded('m3', 'mgr', api))
        .when(sharedAdd('m4', 'mgr', { cap: 10, source: api }))
        .then([sharedAdded('m4', 'mgr', api)]);
      given(
        sharedAdded('a1', 'ua'),
        sharedAdded('m1', 'mgr', api),
        sharedAdded('a2', 'ua'),
        sharedAdded('m2', 'mgr', api),
      )
        .when(sharedAdd('m3', 'mgr', { source: api }))
        .then([sharedRetired('m1'), sharedAdded('m3', 'mgr', api)]);
      given(
        sharedAdded('a1', 'ua'),
        sharedAdded('a2', 'ua'),
        sharedAdded('b1', 'ub'),
        sharedAdded('b2', 'ub'),
      )
        .when(sharedAdd('m1', 'mgr', { source: api }))
        .thenThrows('shared_memory_full');
    });

    it('holds against a flood of 205 confirmed proposals by one user: nobody else loses a memory', () => {
      let state = [
        sharedAdded('m1', 'mgr', api),
        sharedAdded('m2', 'mgr', api),
        sharedAdded('a1', 'ua'),
        sharedAdded('a2', 'ua'),
      ].reduce(memoryBucketDecider.evolve, memoryBucketDecider.initialState());
      const retiredIds: string[] = [];
      for (let i = 0; i < 205; i++) {
        const events = memoryBucketDecider.decide(sharedAdd(`b${i}`, 'ub', { cap: 200, share: 20 }), state);
        for (const event of events) if (event.type === 'MemoryRetired') retiredIds.push(event.data.memoryId);
        state = events.reduce(memoryBucketDecider.evolve, state);
      }
      expect(retiredIds).toHaveLength(185);
      expect(retiredIds.every((id) => id.startsWith('b'))).toBe(true);
      const live = state.memories.map((memory) => memory.memoryId);
      expect(live).toEqual(expect.arrayContaining(['m1', 'm2', 'a1', 'a2']));
      expect(live.filter((id) => id.startsWith('b'))).toEqual(
        Array.from({ length: 20 }, (_, i) => `b${185 + i}`),
      );
    });

    it('reads the contributor of memories added before shares existed (MemoryAdded.addedBy, its source)', () => {
      const state = [sharedAdded('m1', 'mgr', api), sharedAdded('a1', 'ua')].reduce(
        memoryBucketDecider.evolve,
        memoryBucketDecider.initialState(),
      );
      expect(state.memories).toMatchObject([
        { memoryId: 'm1', contributor: 'mgr', direct: true },
        { memoryId: 'a1', contributor: 'ua', direct: false },
      ]);
    });

    it('refuses a share below 1 or not whole', () => {
      given()
        .when(sharedAdd('b1', 'ub', { share: 0 }))
        .thenThrows('invalid_memory_share');
      given()
        .when(sharedAdd('b1', 'ub', { share: 1.5 }))
        .thenThrows('invalid_memory_share');
    });
  });

  describe('ReviseMemory', () => {
    it('records the next version, keeping the previous ones', () => {
      given(added('x1'))
        .when(revise('x1', 'sealed-x1-v2'))
        .then([revised('x1', 2)]);
      given(added('x1'), revised('x1', 2))
        .when(revise('x1', 'sealed-x1-v3'))
        .then([revised('x1', 3)]);
    });

    it('keeps the text of every version in the state', () => {
      const state = [added('x1'), revised('x1', 2), revised('x1', 3)].reduce(
        memoryBucketDecider.evolve,
        memoryBucketDecider.initialState(),
      );
      expect(state.memories).toMatchObject([
        {
          memoryId: 'x1',
          version: 3,
          versions: [
            { version: 1, text: 'sealed-x1' },
            { version: 2, text: 'sealed-x1-v2' },
            { version: 3, text: 'sealed-x1-v3' },
          ],
        },
      ]);
    });

    it('lets the extractor supersede a contradicted fact (no user)', () =>
      given(added('x1'))
        .when({
          ...revise('x1', 'new'),
          source: extracted,
          revisedBy: null,
          reason: 'superseded',
        } as MemoryBucketCommand)
        .then([
          {
            type: 'MemoryRevised',
            data: {
              ...bucket,
              memoryId: 'x1',
              version: 2,
              text: 'new',
              source: extracted,
              revisedBy: null,
              reason: 'superseded',
            },
          },
        ]));

    it('is memory_not_found for an unknown or gone memory', () => {
      given().when(revise('x1', 't')).thenThrows('memory_not_found');
      given(added('x1'), deleted('x1')).when(revise('x1', 't')).thenThrows('memory_not_found');
      given(added('x1'), added('x2'), retired('x1')).when(revise('x1', 't')).thenThrows('memory_not_found');
    });

    it('fails with a not_found error (404 over HTTP) on memoryId', () => {
      let error: unknown;
      try {
        memoryBucketDecider.decide(revise('x1', 't'), memoryBucketDecider.initialState());
      } catch (thrown) {
        error = thrown;
      }
      expect(error).toBeInstanceOf(MemoryNotFoundError);
      expect(error).toMatchObject({ kind: 'not_found', code: 'memory_not_found', param: 'memoryId' });
    });
  });

  describe('RollBackMemory', () => {
    const history = [added('x1'), revised('x1', 2), revised('x1', 3)];

    it('brings an old text back as a new version', () =>
      given(...history)
        .when(rollBack('x1', 1))
        .then([
          {
            type: 'MemoryRolledBack',
            data: {
              ...bucket,
              memoryId: 'x1',
              version: 4,
              toVersion: 1,
              text: 'resealed-x1-v1',
              rolledBackBy: 'u1',
            },
          },
        ]));

    it('keeps the rollback in the history: the next revision and rollback count on from it', () => {
      const rolledBack: MemoryEvent = {
        type: 'MemoryRolledBack',
        data: { ...bucket, memoryId: 'x1', version: 4, toVersion: 1, text: 'sealed', rolledBackBy: 'u1' },
      };
      given(...history, rolledBack)
        .when(revise('x1', 'sealed-x1-v5'))
        .then([revised('x1', 5)]);
      given(...history, rolledBack)
        .when(rollBack('x1', 3))
        .then([
          {
            type: 'MemoryRolledBack',
            data: {
              ...bucket,
              memoryId: 'x1',
              version: 5,
              toVersion: 3,
              text: 'resealed-x1-v3',
              rolledBackBy: 'u1',
            },
          },
        ]);
      given(...history, rolledBack)
        .when(rollBack('x1', 4))
        .thenThrows('memory_version_is_current');
    });

    it('refuses a version that never existed (400) and the current one (409)', () => {
      const state = history.reduce(memoryBucketDecider.evolve, memoryBucketDecider.initialState());
      expect(() => memoryBucketDecider.decide(rollBack('x1', 7), state)).toThrow(
        expect.objectContaining({ kind: 'validation', code: 'memory_version_not_found', param: 'toVersion' }),
      );
      expect(() => memoryBucketDecider.decide(rollBack('x1', 0), state)).toThrow(
        expect.objectContaining({ code: 'memory_version_not_found' }),
      );
      expect(() => memoryBucketDecider.decide(rollBack('x1', 3), state)).toThrow(
        expect.objectContaining({ kind: 'conflict', code: 'memory_version_is_current', param: 'toVersion' }),
      );
    });

    it('is memory_not_found for an unknown or deleted memory', () => {
      given().when(rollBack('x1', 1)).thenThrows('memory_not_found');
      given(...history, deleted('x1'))
        .when(rollBack('x1', 1))
        .thenThrows('memory_not_found');
    });
  });

  describe('RecordRecall', () => {
    it('records the live memories a turn used, once each', () =>
      given(added('x1'), added('x2'))
        .when(recall(['x2', 'x1', 'x2']))
        .then([recalled(['x2', 'x1'])]));

    it('ignores ids that are not live', () =>
      given(added('x1'), added('x2'), deleted('x2'))
        .when(recall(['x2', 'nope', 'x1']))
        .then([recalled(['x1'])]));

    it('records nothing when none is live', () => {
      given(added('x1'), deleted('x1'))
        .when(recall(['x1', 'nope']))
        .then([]);
      given().when(recall([])).then([]);
    });
  });

  describe('DeleteMemory', () => {
    it('deletes a live memory', () =>
      given(added('x1'), added('x2'))
        .when(del('x1'))
        .then([deleted('x1')]));

    it('is memory_not_found for an unknown, deleted or retired memory', () => {
      given().when(del('x1')).thenThrows('memory_not_found');
      given(added('x1'), deleted('x1')).when(del('x1')).thenThrows('memory_not_found');
      given(added('x1'), added('x2'), retired('x1')).when(del('x1')).thenThrows('memory_not_found');
    });

    it("deletes for the Agent's deletion, and does nothing when the memory is already gone", () => {
      given(added('x1'))
        .when(del('x1', 'agent_deleted'))
        .then([{ type: 'MemoryDeleted', data: { ...bucket, memoryId: 'x1', reason: 'agent_deleted' } }]);
      given(added('x1'), deleted('x1')).when(del('x1', 'agent_deleted')).then([]);
    });
  });

  describe('ClearBucket', () => {
    it('deletes every live memory in one fact', () =>
      given(added('x1'), added('x2'), added('x3'), deleted('x2'))
        .when(clear)
        .then([cleared(['x1', 'x3'])]));

    it('records nothing for an empty or already cleared bucket', () => {
      given().when(clear).then([]);
      given(added('x1'), cleared(['x1']))
        .when(clear)
        .then([]);
    });

    it("clears for the Agent's deletion (no user)", () =>
      given(added('x1'))
        .when({ type: 'ClearBucket', ...bucket, clearedBy: null, reason: 'agent_deleted' })
        .then([
          {
            type: 'MemoryBucketCleared',
            data: { ...bucket, memoryIds: ['x1'], clearedBy: null, reason: 'agent_deleted' },
          },
        ]));

    it('leaves an empty bucket that fills again up to the cap', () =>
      given(added('x1'), added('x2'), cleared(['x1', 'x2']), added('x3'))
        .when(add('x4', 2))
        .then([added('x4')]));
  });

  describe('RecordFlagged', () => {
    const flagged: MemoryEvent = {
      type: 'MemoryScreeningFlagged',
      data: { ...bucket, candidateId: 'k1', reasons: ['credential'], source: extracted, flaggedBy: null },
    };

    it('records the refusal with its reasons', () => given().when(flag('k1')).then([flagged]));

    it('records a candidate once', () => given(flagged).when(flag('k1')).then([]));

    it('refuses a refusal without a reason', () =>
      given().when(flag('k1', [])).thenThrows('invalid_screening_reasons'));
  });
});
