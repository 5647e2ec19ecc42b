// Query shapes of the MongoDB adapter, checked without a server: what mongo-read-store.ts sends for filters, keyset
// cursors, guarded writes, checkpoints, registry merges and leases.
import { encodeCursor, type PositionedOp } from '../read-store.port.js';
import {
  duplicateKeyIndex,
  filterQuery,
  findPlan,
  indexKeys,
  isDuplicateKey,
  keysetQuery,
  leaseAcquire,
  planCommit,
  projectionUpdate,
  registerCollectionsUpdate,
  runsByCollection,
  sortSpec,
  toDocument,
  toPage,
  toProjectionRecord,
  writeModel,
  checkpointUpdate,
} from './mongo-query.js';

const guard = (id: string, position: number) => ({ _id: id, _position: { $not: { $gte: position } } });

describe('filterQuery', () => {
  it('maps equality, null, booleans and id', () => {
    expect(filterQuery({ team: 'red', rank: 2, active: false, id: 'a' })).toEqual({
      team: 'red',
      rank: 2,
      active: false,
      _id: 'a',
    });
    // Mongo's { f: null } matches null and a missing field, as the port asks.
    expect(filterQuery({ team: null })).toEqual({ team: null });
  });

  it('keeps $in (empty included), $ne and ranges, and nothing else', () => {
    expect(filterQuery({ team: { $in: ['blue', 'green'] } })).toEqual({ team: { $in: ['blue', 'green'] } });
    expect(filterQuery({ team: { $in: [] } })).toEqual({ team: { $in: [] } });
    // $ne matches missing and null in Mongo as well; $ne: null only present values.
    expect(filterQuery({ team: { $ne: 'red' } })).toEqual({ team: { $ne: 'red' } });
    expect(filterQuery({ team: { $ne: null } })).toEqual({ team: { $ne: null } });
    expect(filterQuery({ rank: { $gte: 2, $lt: 5 }, name: { $gt: 'Charlie', $lte: 'Echo' } })).toEqual({
      rank: { $gte: 2, $lt: 5 },
      name: { $gt: 'Charlie', $lte: 'Echo' },
    });
    const smuggled = { $where: 'sleep(1000)', $ne: 'x' } as unknown as { $ne: string };
    expect(filterQuery({ team: smuggled })).toEqual({ team: { $ne: 'x' } });
    expect(filterQuery({ team: {} })).toEqual({});
    expect(filterQuery({ team: { $gt: undefined } })).toEqual({});
    expect(filterQuery({})).toEqual({});
  });

  it('refuses field names that are not plain top-level names or are the adapter’s own', () => {
    expect(() => filterQuery({ 'a.b': 1 })).toThrow("invalid field name 'a.b'");
    expect(() => filterQuery({ $where: 1 })).toThrow('invalid field name');
    expect(() => filterQuery({ _id: 'a' })).toThrow('invalid field name');
    expect(() => filterQuery({ _position: 1 })).toThrow('invalid field name');
  });
});

describe('sort and keyset cursor', () => {
  it('sorts by the field then _id in the same direction', () => {
    expect(sortSpec('rank', false)).toEqual({ rank: 1, _id: 1 });
    expect(sortSpec('rank', true)).toEqual({ rank: -1, _id: -1 });
    expect(sortSpec('_id', true)).toEqual({ _id: -1 });
  });

  it('continues after a non-null value ascending and descending (nulls last when descending)', () => {
    expect(keysetQuery('rank', false, { value: 2, id: 'c' })).toEqual({
      $or: [{ rank: { $gt: 2 } }, { rank: 2, _id: { $gt: 'c' } }],
    });
    expect(keysetQuery('rank', true, { value: 2, id: 'd' })).toEqual({
      $or: [{ rank: { $lt: 2 } }, { rank: null }, { rank: 2, _id: { $lt: 'd' } }],
    });
  });

  it('continues after a null value (nulls first ascending, last descending)', () => {
    expect(keysetQuery('team', false, { value: null, id: 'd' })).toEqual({
      $or: [{ team: null, _id: { $gt: 'd' } }, { team: { $ne: null } }],
    });
    expect(keysetQuery('team', true, { value: null, id: 'd' })).toEqual({ team: null, _id: { $lt: 'd' } });
  });

  it('uses only the id when sorting by id', () => {
    expect(keysetQuery('_id', false, { value: 'b', id: 'b' })).toEqual({ _id: { $gt: 'b' } });
    expect(keysetQuery('_id', true, { value: 'b', id: 'b' })).toEqual({ _id: { $lt: 'b' } });
  });

  it('refuses a cursor whose value is not a scalar (it would read as an operator)', () => {
    expect(() => keysetQuery('rank', false, { value: { $ne: null }, id: 'a' })).toThrow(
      expect.objectContaining({ code: 'invalid_cursor' }),
    );
  });

  it('plans a find: filter and keyset under $and, limit, default id order', () => {
    const cursor = encodeCursor({ value: 'red', id: 'c' });
    expect(findPlan({ team: { $ne: 'blue' } }, { sort: { field: 'team' }, limit: 2, cursor })).toEqual({
      query: {
        $and: [
          { team: { $ne: 'blue' } },
          { $or: [{ team: { $gt: 'red' } }, { team: 'red', _id: { $gt: 'c' } }] },
        ],
      },
      sort: { team: 1, _id: 1 },
      sortPath: 'team',
      limit: 2,
      projection: null,
    });
    expect(findPlan({}, {})).toEqual({
      query: {},
      sort: { _id: 1 },
      sortPath: '_id',
      limit: null,
      projection: null,
    });
    expect(findPlan({}, { limit: -1 }).limit).toBeNull();
    expect(findPlan({}, { cursor: encodeCursor({ value: 'a', id: 'a' }) }).query).toEqual({
      _id: { $gt: 'a' },
    });
    expect(() => findPlan({}, { cursor: 'not-a-cursor' })).toThrow(
      expect.objectContaining({ code: 'invalid_cursor' }),
    );
  });

  it('plans omitted fields as an exclusion projection, never of the id or the sort field', () => {
    expect(findPlan({}, { sort: { field: 'rank' }, omit: ['detail', 'tags'] }).projection).toEqual({
      detail: 0,
      tags: 0,
    });
    expect(() => findPlan({}, { omit: ['id'] })).toThrow("find cannot omit 'id'");
    expect(() => findPlan({}, { sort: { field: 'rank' }, omit: ['rank'] })).toThrow(
      "find cannot omit 'rank'",
    );
    expect(() => findPlan({}, { omit: ['_position'] })).toThrow("invalid field name '_position'");
  });

  it('cuts limit + 1 documents into a page whose cursor holds the last sort value (null when missing)', () => {
    const plan = findPlan({}, { sort: { field: 'team' }, limit: 2 });
    const records = [
      { _id: 'd', _position: 4, name: 'Delta' },
      { _id: 'b', _position: 2, team: 'blue' },
      { _id: 'a', _position: 1, team: 'red' },
    ];
    const page = toPage(records.slice(0, 3), plan);
    expect(page.data).toEqual([
      { id: 'd', name: 'Delta' },
      { id: 'b', team: 'blue' },
    ]);
    expect(page.nextCursor).toBe(encodeCursor({ value: 'blue', id: 'b' }));
    expect(toPage(records.slice(0, 1), findPlan({}, { sort: { field: 'team' }, limit: 0 }))).toEqual({
      data: [],
      nextCursor: null,
    });
    expect(toPage(records.slice(0, 2), plan).nextCursor).toBeNull();
    const nullLast = toPage(records, findPlan({}, { sort: { field: 'team' }, limit: 1 }));
    expect(nullLast.nextCursor).toBe(encodeCursor({ value: null, id: 'd' }));
  });

  it('returns documents as upserted, without _id and _position', () => {
    expect(toDocument({ _id: 'a', _position: 3, name: 'Alpha', team: null })).toEqual({
      id: 'a',
      name: 'Alpha',
      team: null,
    });
  });
});

describe('position-guarded writes', () => {
  it('upserts by replacing the whole document when its position is lower or missing', () => {
    expect(
      writeModel(
        { kind: 'upsert', collection: 'items', doc: { id: 'a', name: 'A', team: null, x: undefined } },
        5,
      ),
    ).toEqual({
      replaceOne: {
        filter: guard('a', 5),
        replacement: { name: 'A', team: null, _position: 5 },
        upsert: true,
      },
    });
  });

  it('patches with $set (null kept), never creates, and skips a patch without fields', () => {
    expect(
      writeModel({ kind: 'patch', collection: 'items', id: 'a', set: { name: 'A2', team: null } }, 6),
    ).toEqual({
      updateOne: { filter: guard('a', 6), update: { $set: { name: 'A2', team: null, _position: 6 } } },
    });
    expect(
      writeModel({ kind: 'patch', collection: 'items', id: 'a', set: { name: undefined } }, 6),
    ).toBeNull();
    expect(() => writeModel({ kind: 'patch', collection: 'items', id: 'a', set: { id: 'b' } }, 6)).toThrow(
      'id',
    );
    expect(() => writeModel({ kind: 'patch', collection: 'items', id: 'a', set: { 'a.b': 1 } }, 6)).toThrow(
      'invalid field name',
    );
  });

  it('increments with $inc, creating with onCreate (minus incremented fields and id) on insert', () => {
    expect(
      writeModel(
        {
          kind: 'increment',
          collection: 'items',
          id: 'n',
          by: { rank: 1 },
          onCreate: { name: 'New', rank: 100, id: 'other', team: 'x' },
        },
        9,
      ),
    ).toEqual({
      updateOne: {
        filter: guard('n', 9),
        update: { $set: { _position: 9 }, $inc: { rank: 1 }, $setOnInsert: { name: 'New', team: 'x' } },
        upsert: true,
      },
    });
    expect(writeModel({ kind: 'increment', collection: 'items', id: 'a', by: { rank: 2 } }, 8)).toEqual({
      updateOne: {
        filter: guard('a', 8),
        update: { $set: { _position: 8 }, $inc: { rank: 2 } },
        upsert: true,
      },
    });
  });

  it('deletes only when the document has not seen a later event', () => {
    expect(writeModel({ kind: 'delete', collection: 'items', id: 'b' }, 10)).toEqual({
      deleteOne: { filter: guard('b', 10) },
    });
  });

  it('refuses document fields the adapter uses itself', () => {
    expect(() =>
      writeModel({ kind: 'upsert', collection: 'items', doc: { id: 'a', _position: 1 } }, 1),
    ).toThrow('reserved');
    expect(() =>
      writeModel({ kind: 'increment', collection: 'items', id: 'a', by: {}, onCreate: { _id: 'x' } }, 1),
    ).toThrow('reserved');
  });

  it('plans a commit in op order on physical collections, in runs per collection', () => {
    const ops: PositionedOp[] = [
      { position: 1, op: { kind: 'upsert', collection: 'items', doc: { id: 'a' } } },
      { position: 2, op: { kind: 'patch', collection: 'items', id: 'a', set: {} } },
      { position: 3, op: { kind: 'increment', collection: 'items', id: 'a', by: { n: 1 } } },
      { position: 4, op: { kind: 'delete', collection: 'tags', id: 't' } },
      { position: 5, op: { kind: 'delete', collection: 'items', id: 'a' } },
    ];
    const planned = planCommit({ name: 'p', generation: 3 }, ops);
    expect(planned.map((w) => [w.collection, w.id, w.position])).toEqual([
      ['items__g3', 'a', 1],
      ['items__g3', 'a', 3],
      ['tags__g3', 't', 4],
      ['items__g3', 'a', 5],
    ]);
    expect(runsByCollection(planned).map((run) => run.map((w) => w.position))).toEqual([[1, 3], [4], [5]]);
    expect(() =>
      planCommit({ name: 'p', generation: 1 }, [
        { position: 1, op: { kind: 'delete', collection: 'Bad-Name', id: 'a' } },
      ]),
    ).toThrow('invalid collection name');
  });

  it('recognises the duplicate key that stops an ordered bulkWrite, and only that', () => {
    expect(duplicateKeyIndex({ code: 11000, writeErrors: [{ code: 11000, index: 2 }] })).toBe(2);
    expect(duplicateKeyIndex({ code: 11000, writeErrors: { code: 11000, index: 0 } })).toBe(0);
    expect(duplicateKeyIndex({ writeErrors: [{ code: 121, index: 1 }] })).toBeNull();
    expect(duplicateKeyIndex(new Error('network'))).toBeNull();
    expect(isDuplicateKey({ code: 11000 })).toBe(true);
    expect(isDuplicateKey({ code: 13 })).toBe(false);
  });
});

describe('indexes, checkpoints, registry and leases', () => {
  it('ends non-unique indexes with _id and leaves the id index to Mongo', () => {
    expect(indexKeys({ fields: ['team'] })).toEqual({ team: 1, _id: 1 });
    expect(indexKeys({ fields: ['email'], unique: true })).toEqual({ email: 1 });
    expect(indexKeys({ fields: ['team', 'id'] })).toEqual({ team: 1, _id: 1 });
    expect(indexKeys({ fields: ['id'] })).toBeNull();
  });

  it('only raises a checkpoint', () => {
    expect(checkpointUpdate({ name: 'p', generation: 2 }, 7)).toEqual({
      $max: { position: 7 },
      $setOnInsert: { name: 'p', generation: 2 },
    });
  });

  it('merges a registry record: given fields set, the others defaulted on creation only', () => {
    expect(
      projectionUpdate({ name: 'p', liveGeneration: 2, liveVersion: 2, buildingGeneration: undefined }),
    ).toEqual({
      $set: { liveGeneration: 2, liveVersion: 2 },
      $setOnInsert: {
        buildingGeneration: null,
        buildingVersion: null,
        rebuildRequested: false,
        collections: [],
      },
    });
    expect(registerCollectionsUpdate('p', ['items', 'tags'])).toEqual({
      $addToSet: { collections: { $each: ['items', 'tags'] } },
      $setOnInsert: {
        liveGeneration: null,
        liveVersion: null,
        buildingGeneration: null,
        buildingVersion: null,
        rebuildRequested: false,
      },
    });
    expect(toProjectionRecord({ _id: 'p', liveGeneration: 1, collections: ['items'] })).toEqual({
      name: 'p',
      liveGeneration: 1,
      liveVersion: null,
      buildingGeneration: null,
      buildingVersion: null,
      rebuildRequested: false,
      collections: ['items'],
    });
  });

  it('takes a lease that is ours or expired', () => {
    expect(leaseAcquire('l', 'one', 1000, 500)).toEqual({
      filter: { _id: 'l', $or: [{ owner: 'one' }, { expiresAt: { $lt: 1000 } }] },
      update: { $set: { owner: 'one', expiresAt: 1500 } },
    });
  });
});
