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
