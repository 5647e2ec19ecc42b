import type { PositionedOp, WriteOp } from '#read-store';
import { applyOpsInMemory } from './in-memory-ops.js';
import { PendingWrites } from './pending-writes.js';

const C = 'docs';
const at = (position: number, op: WriteOp): PositionedOp => ({ position, op });

/** A mixed run of writes to a few documents: upserts, patches, increments and deletes, as projectors make them. */
function writes(count: number): PositionedOp[] {
  const kinds: ((id: string, i: number) => WriteOp)[] = [
    (id, i) => ({ kind: 'upsert', collection: C, doc: { id, v: i } }),
    (id, i) => ({ kind: 'patch', collection: C, id, set: { p: i } }),
    (id) => ({ kind: 'increment', collection: C, id, by: { n: 1 } }),
    (id, i) => ({ kind: 'patch', collection: C, id, set: { q: i % 3 } }),
    (id) => ({ kind: 'increment', collection: C, id, by: { n: 2, m: 1 } }),
    (id) => ({ kind: 'delete', collection: C, id }),
  ];
  return Array.from({ length: count }, (_, i) => at(i + 1, kinds[(i * 7) % kinds.length]!(`d${i % 5}`, i)));
}

describe('PendingWrites', () => {
  it.each([true, false])(
    'folds each document as it goes, to the same documents as all its writes applied (mergeIncrements %s)',
    (mergeIncrements) => {
      const all = writes(400);
      const pending = new PendingWrites({ mergeIncrements });
      for (const written of all) pending.add(written);
      expect(pending.documents).toBe(5);
      const compacted = pending.compacted();
      expect(compacted.length).toBeLessThan(all.length);
      for (const committed of [null, { id: 'x', v: -1, n: 10 }]) {
        for (const id of ['d0', 'd1', 'd2', 'd3', 'd4']) {
          const expected = applyOpsInMemory(committed && { ...committed, id }, C, id, all);
          expect(pending.applied(committed && { ...committed, id }, C, id)).toEqual(expected);
          expect(applyOpsInMemory(committed && { ...committed, id }, C, id, compacted)).toEqual(expected);
        }
      }
    },
  );

  it('holds increments it may not merge without refolding them on every write', () => {
    const pending = new PendingWrites({ mergeIncrements: false });
    // Refolded only as the run doubles (refolding each of these writes would take minutes).
    for (let i = 1; i <= 200_000; i++)
      pending.add(at(i, { kind: 'increment', collection: C, id: 'count', by: { n: 1 } }));
    expect(pending.compacted()).toHaveLength(200_000);
    expect(pending.applied(null, C, 'count')).toEqual({ id: 'count', n: 200_000 });
  });
});
