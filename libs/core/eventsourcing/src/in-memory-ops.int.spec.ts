import type { Filter, PositionedOp, WriteOp } from '#read-store';
import { SqliteReadStore } from '#read-store/sqlite/sqlite-read-store';
import { compactDocumentOps, compactOps, matchesFilter } from './in-memory-ops.js';

const at = (position: number, op: WriteOp): PositionedOp => ({ position, op });
const C = 'docs';

describe('compactOps', () => {
  it('folds an upsert and its patches into one upsert at the last position', () => {
    expect(
      compactOps([
        at(1, { kind: 'upsert', collection: C, doc: { id: 'a', n: 1, t: 'x' } }),
        at(2, { kind: 'upsert', collection: C, doc: { id: 'b' } }),
        at(3, { kind: 'patch', collection: C, id: 'a', set: { n: 2 } }),
        at(4, { kind: 'patch', collection: C, id: 'a', set: { t: null } }),
      ]),
    ).toEqual([
      at(2, { kind: 'upsert', collection: C, doc: { id: 'b' } }),
      at(4, { kind: 'upsert', collection: C, doc: { id: 'a', n: 2, t: null } }),
    ]);
  });

  it('keeps increments apart from earlier patches, and a delete supersedes everything before it', () => {
    const ops = [
      at(1, { kind: 'patch', collection: C, id: 'a', set: { x: 1 } }),
      at(2, { kind: 'increment', collection: C, id: 'a', by: { n: 1 } }),
      at(3, { kind: 'patch', collection: C, id: 'a', set: { y: 1 } }),
      at(4, { kind: 'delete', collection: C, id: 'b' }),
      at(5, { kind: 'patch', collection: C, id: 'b', set: { y: 1 } }),
    ] as PositionedOp[];
    expect(compactOps(ops)).toEqual([ops[0], ops[1], ops[2], ops[3]]);
  });

  it('gives the same documents as applying every op, also when the batch is replayed', async () => {
    const batch: PositionedOp[] = [];
    let position = 0;
    const ids = ['a', 'b', 'c'];
    for (let i = 0; i < 300; i++) {
      const id = ids[i % 3]!;
      position += 1;
      const roll = (i * 7919) % 10;
      batch.push(
        at(
          position,
          roll < 2
            ? { kind: 'upsert', collection: C, doc: { id, v: i, n: 0 } }
            : roll < 7
              ? { kind: 'patch', collection: C, id, set: { v: i, [`f${roll}`]: i } }
              : roll < 9
                ? { kind: 'increment', collection: C, id, by: { n: 1 } }
                : { kind: 'delete', collection: C, id },
        ),
      );
    }
    const run = async (ops: PositionedOp[], replay: boolean) => {
      const store = new SqliteReadStore({ path: ':memory:' });
      const ref = { name: 'p', generation: 1 };
      await store.prepareGeneration(ref, [{ name: C }]);
      await store.commit(ref, ops, position);
      if (replay) await store.commit(ref, ops, position);
      const docs = (await store.readerAt(C, ref).find({}, { sort: { field: 'id' } })).data;
      await store.close();
      return docs;
    };
    const compacted = compactOps(batch);
    expect(compacted.length).toBeLessThan(batch.length);
    expect(await run(compacted, false)).toEqual(await run(batch, false));
    expect(await run(compacted, true)).toEqual(await run(batch, false));
    // Where a batch commits all or nothing, consecutive increments fold too, with the same result.
    const merged = compactOps(batch, { mergeIncrements: true });
    expect(merged.length).toBeLessThanOrEqual(compacted.length);
    expect(await run(merged, false)).toEqual(await run(batch, false));
    expect(await run(merged, true)).toEqual(await run(batch, false));
  });

  it('with mergeIncrements, folds a run of increments into one, summing each field, at the last position', () => {
    expect(
      compactOps(
        [
          at(1, {
            kind: 'increment',
            collection: C,
            id: 'a',
            by: { n: 1, cost: 0.5 },
            onCreate: { kind: 'k' },
          }),
          at(2, { kind: 'increment', collection: C, id: 'b', by: { n: 1 } }),
          at(3, { kind: 'increment', collection: C, id: 'a', by: { n: 2, m: 1 }, onCreate: { kind: 'k' } }),
        ],
        { mergeIncrements: true },
      ),
    ).toEqual([
      at(2, { kind: 'increment', collection: C, id: 'b', by: { n: 1 } }),
      at(3, {
        kind: 'increment',
        collection: C,
        id: 'a',
        by: { n: 3, cost: 0.5, m: 1 },
        onCreate: { kind: 'k' },
      }),
    ]);
  });

  it('with mergeIncrements, sums runs of increments without changing the ops it was given', () => {
    // A projector may share one `by` between the documents of an event (the usage projector does).
    const by = { calls: 1, cost: 0.25 };
    const ops = [1, 2, 3].flatMap((position) => [
      at(position, { kind: 'increment', collection: C, id: 'key', by }),
      at(position, { kind: 'increment', collection: C, id: 'user', by }),
    ]);
    const given = structuredClone(ops);
    expect(compactOps(ops, { mergeIncrements: true })).toEqual([
      at(3, { kind: 'increment', collection: C, id: 'key', by: { calls: 3, cost: 0.75 } }),
      at(3, { kind: 'increment', collection: C, id: 'user', by: { calls: 3, cost: 0.75 } }),
    ]);
    expect(ops).toEqual(given);
    expect(by).toEqual({ calls: 1, cost: 0.25 });
  });
});

describe('compactDocumentOps', () => {
  it("folds one document's ops as compactOps does", () => {
    for (const mergeIncrements of [false, true])
      for (let seed = 1; seed <= 50; seed++) {
        const ops: PositionedOp[] = [];
        for (let i = 0, roll = seed; i < 2 + (seed % 13); i++) {
          roll = (roll * 7919 + 17) % 101;
          const kind = roll % 5;
          ops.push(
            at(
              i + 1,
              kind === 0
                ? { kind: 'upsert', collection: C, doc: { id: 'a', v: i, n: 0 } }
                : kind === 1
                  ? { kind: 'delete', collection: C, id: 'a' }
                  : kind === 2
                    ? { kind: 'increment', collection: C, id: 'a', by: { n: 1 } }
                    : { kind: 'patch', collection: C, id: 'a', set: { v: i, [`f${kind}`]: roll } },
            ),
          );
        }
        expect(compactDocumentOps(ops, { mergeIncrements })).toEqual(compactOps(ops, { mergeIncrements }));
      }
  });
});

describe('matchesFilter', () => {
  it('selects what the read store selects for the same filter', async () => {
    const store = new SqliteReadStore({ path: ':memory:' });
    const ref = { name: 'filters', generation: 1 };
    await store.prepareGeneration(ref, [{ name: C }]);
    const docs = [
      { id: 'a', ownerId: 'o1', n: 1, flag: true },
      { id: 'b', ownerId: 'o1', n: 5, flag: false, note: null },
      { id: 'c', ownerId: 'o2', n: 10 },
      { id: 'd', ownerId: 'o2', n: 3, note: 'x' },
    ];
    await store.commit(
      ref,
      docs.map((doc, i) => at(i + 1, { kind: 'upsert', collection: C, doc })),
      docs.length,
    );
    const filters: Filter[] = [
      {},
      { ownerId: 'o1' },
      { ownerId: 'o3' },
      { note: null },
      { flag: true },
      { ownerId: { $in: ['o2', 'o3'] } },
      { ownerId: { $ne: 'o1' } },
      { n: { $gt: 3 } },
      { n: { $gte: 3, $lt: 10 } },
      { n: { $lte: 5 }, ownerId: 'o2' },
    ];
    for (const filter of filters) {
      const stored = (await store.readerAt(C, ref).find(filter, { limit: 100 })).data.map((doc) => doc.id);
      expect([filter, docs.filter((doc) => matchesFilter(doc, filter)).map((doc) => doc.id)]).toEqual([
        filter,
        stored,
      ]);
    }
    await store.close();
  });
});
