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
