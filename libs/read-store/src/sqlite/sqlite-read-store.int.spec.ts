import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readStoreContract } from '../read-store.contract.js';
import { SqliteReadStore } from './sqlite-read-store.js';

readStoreContract('sqlite (:memory:)', async () => new SqliteReadStore({ path: ':memory:' }));
readStoreContract(
  'sqlite (WAL file)',
  async () => new SqliteReadStore({ path: join(mkdtempSync(join(tmpdir(), 'rs-')), 'read.db') }),
);

describe('SqliteReadStore purges on disk', () => {
  it('leaves a deleted document in no file, the WAL included, while the store stays open', async () => {
    const at = mkdtempSync(join(tmpdir(), 'rs-erase-'));
    const store = new SqliteReadStore({ path: join(at, 'read.db') });
    const ref = { name: 'erasure_test', generation: 1 };
    await store.prepareGeneration(ref, [{ name: 'notes' }]);
    const secret = 'PURGEDNOTE9xk31';
    await store.commit(
      ref,
      [
        { position: 1, op: { kind: 'upsert', collection: 'notes', doc: { id: 'keep', text: 'stays' } } },
        { position: 2, op: { kind: 'upsert', collection: 'notes', doc: { id: 'gone', text: secret } } },
      ],
      2,
    );
    const holding = () =>
      readdirSync(at).filter((name) => readFileSync(join(at, name)).includes(Buffer.from(secret)));
    expect(holding()).not.toEqual([]);
    await store.commit(ref, [{ position: 3, op: { kind: 'delete', collection: 'notes', id: 'gone' } }], 3);
    expect(holding()).toEqual([]);
    await store.close();
    rmSync(at, { recursive: true, force: true });
  });
});

describe('SqliteReadStore commit statements', () => {
  it('patches each field list with its own statement, and refuses a field name that is not one', async () => {
    const store = new SqliteReadStore({ path: ':memory:' });
    const ref = { name: 'patch_test', generation: 1 };
    await store.prepareGeneration(ref, [{ name: 'items' }]);
    const patch = (position: number, set: Record<string, unknown>) =>
      store.commit(ref, [{ position, op: { kind: 'patch', collection: 'items', id: 'a', set } }], position);
    await store.commit(
      ref,
      [{ position: 1, op: { kind: 'upsert', collection: 'items', doc: { id: 'a', x: 0, y: 0 } } }],
      1,
    );
    await patch(2, { x: 1 });
    await patch(3, { x: 2, y: 3 });
    await patch(4, { y: 4, x: 5 });
    await patch(5, { y: 6 });
    expect(await store.readerAt('items', ref).get('a')).toMatchObject({ id: 'a', x: 5, y: 6 });
    // A name that would change the SQL is refused before anything is written, however the field list is cached.
    await expect(patch(6, { "x', 1) --": 7 })).rejects.toThrow('invalid field name');
    await expect(patch(6, { 'x,y': 7 })).rejects.toThrow('invalid field name');
    expect(await store.readerAt('items', ref).get('a')).toMatchObject({ x: 5, y: 6 });
    await store.close();
  });
});

describe('SqliteReadStore commits of one turn of the event loop', () => {
  it('commits them as one transaction, and a commit that fails takes back only its own ops and checkpoint', async () => {
    const at = mkdtempSync(join(tmpdir(), 'rs-group-'));
    const store = new SqliteReadStore({ path: join(at, 'read.db') });
    const one = { name: 'group_one', generation: 1 };
    const two = { name: 'group_two', generation: 1 };
    await store.prepareGeneration(one, [{ name: 'ones' }]);
    await store.prepareGeneration(two, [{ name: 'twos' }]);
    const upsert = (collection: string, id: string, position: number) => ({
      position,
      op: { kind: 'upsert' as const, collection, doc: { id, position } },
    });
    // Three projectors commit in the same turn; the second writes a document and then a bad patch.
    const results = await Promise.allSettled([
      store.commit(one, [upsert('ones', 'a', 5)], 5),
      store.commit(
        two,
        [
          upsert('twos', 'b', 5),
          { position: 5, op: { kind: 'patch', collection: 'twos', id: 'b', set: { 'not a field': 1 } } },
        ],
        5,
      ),
      store.commit(one, [upsert('ones', 'c', 6)], 6),
    ]);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toMatchObject({
      message: "invalid field name 'not a field'",
    });
    expect(await store.readerAt('ones', one).get('a')).toMatchObject({ id: 'a' });
    expect(await store.readerAt('ones', one).get('c')).toMatchObject({ id: 'c' });
    expect(await store.checkpoint(one)).toBe(6);
    // The failed commit left nothing: neither its first document nor its checkpoint.
    expect(await store.readerAt('twos', two).get('b')).toBeNull();
    expect(await store.checkpoint(two)).toBe(0);
    // What was committed is on disk for another connection, and a commit queued at close is not lost.
    const pending = store.commit(two, [upsert('twos', 'd', 7)], 7);
    await store.close();
    await pending;
    const reopened = new SqliteReadStore({ path: join(at, 'read.db') });
    expect(await reopened.readerAt('twos', two).get('d')).toMatchObject({ id: 'd' });
    expect(await reopened.checkpoint(one)).toBe(6);
    await reopened.close();
    rmSync(at, { recursive: true, force: true });
  });
});
