import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readStoreContract } from '../read-store.contract.js';
import { SqliteReadStore } from './sqlite-read-store.js';

readStoreContract('sqlite (:memory:)', async () => new SqliteReadStore({ path: ':memory:' }));
readStoreContract(
  'sqlite (WAL file)',
  async () => new SqliteReadStore({ path: join(mkdtempSync(join(tmpdir(), 'rs-')), 'read.db') }),
);
