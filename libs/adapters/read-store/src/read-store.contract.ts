// One contract for every ReadStore adapter: SQLite always, MongoDB when MONGODB_URI is set.
import { randomUUID } from 'node:crypto';
import type { PositionedOp, ProjectionRef, ReadStore, WriteOp } from './read-store.port.js';

interface Item {
  id: string;
  name: string;
  rank: number;
  team: string | null;
  active: boolean;
  tags?: string[];
}

const at = (position: number, op: WriteOp): PositionedOp => ({ position, op });

export function readStoreContract(adapter: string, open: () => Promise<ReadStore>): void {
  describe(`ReadStore contract: ${adapter}`, () => {
    let store: ReadStore;
    let ref: ProjectionRef;
    let projection: string;
    const collection = 'items';

    beforeAll(async () => {
      store = await open();
    });
    afterAll(async () => {
      await store.close();
    });
    beforeEach(async () => {
      projection = `p_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
      ref = { name: projection, generation: 1 };
      await store.prepareGeneration(ref, [
        { name: `${collection}_${projection}`, indexes: [{ fields: ['team'] }] },
      ]);
    });
    const coll = () => `${collection}_${projection}`;
    const items = (...docs: Item[]) =>
      docs.map((doc, i) => at(i + 1, { kind: 'upsert', collection: coll(), doc: { ...doc } }));
    const seed = async () => {
      const docs: Item[] = [
        { id: 'a', name: 'Alpha', rank: 3, team: 'red', active: true },
        { id: 'b', name: 'Bravo', rank: 1, team: 'blue', active: false },
        { id: 'c', name: 'Charlie', rank: 2, team: 'red', active: true },
        { id: 'd', name: 'Delta', rank: 2, team: null, active: true },
        { id: 'e', name: 'Echo', rank: 5, team: 'green', active: false },
      ];
      await store.commit(ref, items(...docs), docs.length);
      return store.readerAt<Item>(coll(), ref);
    };

    it('commits upserts with the checkpoint and reads documents back', async () => {
      const reader = await seed();
      expect(await reader.get('a')).toEqual({ id: 'a', name: 'Alpha', rank: 3, team: 'red', active: true });
      expect(await reader.get('zzz')).toBeNull();
      expect(await store.checkpoint(ref)).toBe(5);
      expect(await reader.count()).toBe(5);
    });

    it('finds by equality, $in, $ne, null and ranges', async () => {
      const reader = await seed();
      const ids = async (filter: Parameters<typeof reader.find>[0]) =>
        (await reader.find(filter)).data.map((d) => d.id).sort();
      expect(await ids({ team: 'red' })).toEqual(['a', 'c']);
      expect(await ids({ active: false })).toEqual(['b', 'e']);
      expect(await ids({ team: { $in: ['blue', 'green'] } })).toEqual(['b', 'e']);
      expect(await ids({ team: { $in: [] } })).toEqual([]);
      expect(await ids({ team: null })).toEqual(['d']);
      expect(await ids({ team: { $ne: 'red' } })).toEqual(['b', 'd', 'e']);
      expect(await ids({ rank: { $gte: 2, $lt: 5 } })).toEqual(['a', 'c', 'd']);
      expect(await ids({ name: { $gt: 'Charlie' } })).toEqual(['d', 'e']);
      expect(await ids({ team: 'red', rank: { $gt: 2 } })).toEqual(['a']);
      expect(await reader.count({ team: 'red' })).toBe(2);
    });

    it('sorts by a field with id as tie-breaker, both directions', async () => {
      const reader = await seed();
      const asc = await reader.find({}, { sort: { field: 'rank' } });
      expect(asc.data.map((d) => d.id)).toEqual(['b', 'c', 'd', 'a', 'e']);
      const desc = await reader.find({}, { sort: { field: 'rank', direction: 'desc' } });
      expect(desc.data.map((d) => d.id)).toEqual(['e', 'a', 'd', 'c', 'b']);
      expect(asc.nextCursor).toBeNull();
    });

    it('pages with limit and cursor through every document once, in order', async () => {
      const reader = await seed();
      for (const direction of ['asc', 'desc'] as const) {
        for (const sortField of ['rank', 'id', 'team']) {
          const seen: string[] = [];
          let cursor: string | null = null;
          do {
            const page: Awaited<ReturnType<typeof reader.find>> = await reader.find(
              {},
              { sort: { field: sortField, direction }, limit: 2, cursor },
            );
            expect(page.data.length).toBeLessThanOrEqual(2);
            seen.push(...page.data.map((d) => d.id));
            cursor = page.nextCursor;
          } while (cursor);
          const all = (await reader.find({}, { sort: { field: sortField, direction } })).data.map(
            (d) => d.id,
          );
          expect(seen).toEqual(all);
          expect(new Set(seen).size).toBe(5);
        }
      }
      await expect(reader.find({}, { cursor: 'not-a-cursor' })).rejects.toMatchObject({
        code: 'invalid_cursor',
      });
    });

    it('leaves omitted fields out of every document of a page, and pages on as before', async () => {
      const reader = await seed();
      await store.commit(
        ref,
        [at(6, { kind: 'patch', collection: coll(), id: 'c', set: { tags: ['x', 'y'] } })],
        6,
      );
      const seen: Partial<Item>[] = [];
      let cursor: string | null = null;
      do {
        const page: Awaited<ReturnType<typeof reader.find>> = await reader.find(
          { active: true },
          { sort: { field: 'rank' }, limit: 2, cursor, omit: ['name', 'tags'] },
        );
        seen.push(...page.data);
        cursor = page.nextCursor;
      } while (cursor);
      expect(seen).toEqual([
        { id: 'c', rank: 2, team: 'red', active: true },
        { id: 'd', rank: 2, team: null, active: true },
        { id: 'a', rank: 3, team: 'red', active: true },
      ]);
      // The documents themselves keep every field.
      expect(await reader.get('c')).toEqual({
        id: 'c',
        name: 'Charlie',
        rank: 2,
        team: 'red',
        active: true,
        tags: ['x', 'y'],
      });
      await expect(reader.find({}, { sort: { field: 'rank' }, omit: ['rank'] })).rejects.toThrow(
        "find cannot omit 'rank'",
      );
    });

    it('patches fields (null is kept as a value), increments and deletes', async () => {
      const reader = await seed();
      await store.commit(
        ref,
        [
          at(6, { kind: 'patch', collection: coll(), id: 'a', set: { name: 'Alpha 2', team: null } }),
          at(7, { kind: 'patch', collection: coll(), id: 'missing', set: { name: 'x' } }),
          at(8, { kind: 'increment', collection: coll(), id: 'a', by: { rank: 2 } }),
          at(9, {
            kind: 'increment',
            collection: coll(),
            id: 'n',
            by: { rank: 1 },
            onCreate: { name: 'New', team: 'x' },
          }),
          at(10, { kind: 'delete', collection: coll(), id: 'b' }),
        ],
        10,
      );
      expect(await reader.get('a')).toEqual({ id: 'a', name: 'Alpha 2', rank: 5, team: null, active: true });
      expect(await reader.get('missing')).toBeNull();
      expect(await reader.get('n')).toEqual({ id: 'n', name: 'New', team: 'x', rank: 1 });
      expect(await reader.get('b')).toBeNull();
      expect((await reader.find({ team: null })).data.map((d) => d.id).sort()).toEqual(['a', 'd']);
    });

    it('skips writes at or before a document position: re-committing a batch changes nothing', async () => {
      const reader = await seed();
      const batch = [
        at(6, { kind: 'increment', collection: coll(), id: 'a', by: { rank: 10 } }),
        at(7, { kind: 'patch', collection: coll(), id: 'c', set: { name: 'C2' } }),
      ];
      await store.commit(ref, batch, 7);
      await store.commit(ref, batch, 7);
      await store.commit(ref, items({ id: 'a', name: 'stale', rank: 0, team: null, active: false }), 7);
      expect(await reader.get('a')).toMatchObject({ name: 'Alpha', rank: 13 });
      expect(await reader.get('c')).toMatchObject({ name: 'C2' });
      await store.commit(ref, [], 3);
      expect(await store.checkpoint(ref)).toBe(7);
    });

    it('serves readers from the live generation and switches blue/green without a gap', async () => {
      const reader = store.reader<Item>(coll());
      expect(await reader.get('a')).toBeNull();
      expect(await reader.find()).toEqual({ data: [], nextCursor: null });
      await seed();
      await store.saveProjection({ name: projection, liveGeneration: 1, liveVersion: 1 });
      expect((await store.reader<Item>(coll()).get('a'))?.name).toBe('Alpha');

      const next = { name: projection, generation: 2 };
      await store.prepareGeneration(next, [{ name: coll() }]);
      await store.commit(
        next,
        [at(1, { kind: 'upsert', collection: coll(), doc: { id: 'a', name: 'Rebuilt' } })],
        1,
      );
      expect((await store.reader<Item>(coll()).get('a'))?.name).toBe('Alpha');
      await store.saveProjection({ name: projection, liveGeneration: 2, liveVersion: 2 });
      expect((await store.reader<Item>(coll()).get('a'))?.name).toBe('Rebuilt');
      await store.dropGeneration(ref, [coll()]);
      // A dropped generation, or one never prepared, reads as empty (its reads were prepared while it existed).
      const dropped = store.readerAt<Item>(coll(), ref);
      expect(await dropped.get('a')).toBeNull();
      expect(await dropped.find({}, { sort: { field: 'name', direction: 'asc' } })).toEqual({
        data: [],
        nextCursor: null,
      });
      expect(await dropped.count()).toBe(0);
      expect(await store.readerAt<Item>(coll(), { name: projection, generation: 99 }).find()).toEqual({
        data: [],
        nextCursor: null,
      });
      expect(await store.checkpoint(ref)).toBe(0);
      const record = await store.projection(projection);
      expect(record).toMatchObject({
        name: projection,
        liveGeneration: 2,
        liveVersion: 2,
        collections: [coll()],
      });
      expect((await store.projections()).map((p) => p.name)).toContain(projection);
    });

    it('grants a lease to one owner at a time, renews it, and frees it on release or expiry', async () => {
      const lease = `lease-${projection}`;
      expect(await store.acquireLease(lease, 'one', 60000)).toBe(true);
      expect(await store.acquireLease(lease, 'two', 60000)).toBe(false);
      expect(await store.acquireLease(lease, 'one', 60000)).toBe(true);
      expect(await store.leaseHolder(lease)).toMatchObject({ owner: 'one' });
      await store.releaseLease(lease, 'two');
      expect(await store.leaseHolder(lease)).toMatchObject({ owner: 'one' });
      await store.releaseLease(lease, 'one');
      expect(await store.leaseHolder(lease)).toBeNull();
      expect(await store.acquireLease(lease, 'one', 60000)).toBe(true);
      expect(await store.acquireLease(lease, 'two', 60000, 'someone-else')).toBe(false);
      expect(await store.acquireLease(lease, 'two', 60000, 'one')).toBe(true);
      expect(await store.leaseHolder(lease)).toMatchObject({ owner: 'two' });
      await store.releaseLease(lease, 'two');
      expect(await store.acquireLease(lease, 'two', 1)).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(await store.acquireLease(lease, 'three', 60000)).toBe(true);
    });
  });
}
