// The SQLite key store: the shared contract, then what only the file can show: a destroyed key leaves no copy of
// its bytes in any file of the data directory, and openKeyStore's embedded choice of DATA_DIR/keys.db. From the
// TypeScript sources the store commits new keys in its own thread; the compiled key-writer worker (dist/, built by
// `npm run test:int`) runs the contract and the on-disk checks again, committing them in that thread.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { ContentCipher } from '../content-cipher.js';
import { keyStoreContract } from '../key-store.contract.js';
import { openKeyStore } from '../open-key-store.js';
import { SqliteKeyStore } from './sqlite-key-store.js';

const freshDir = (): string => mkdtempSync(join(tmpdir(), 'keys-'));

const COMPILED_WRITER = new URL(
  '../../../../../dist/libs/adapters/key-store/src/sqlite/key-writer.worker.js',
  import.meta.url,
);

/** Every file under dir (journals and WAL files included), each read whole. */
const filesUnder = (dir: string): Map<string, Buffer> =>
  new Map(
    readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => {
        const path = join(entry.parentPath, entry.name);
        return [path, readFileSync(path)] as const;
      }),
  );

/** The files under dir that hold these bytes anywhere. */
const filesHolding = (dir: string, bytes: Buffer): string[] =>
  [...filesUnder(dir)].filter(([, content]) => content.includes(bytes)).map(([path]) => path);

for (const [name, writerWorker] of [
  ['sqlite', null],
  ['sqlite (keys committed in the writer thread)', COMPILED_WRITER],
] as const)
  keyStoreContract(name, async () => {
    const dir = freshDir();
    const path = join(dir, 'keys.db');
    return {
      open: async (masterKey) => new SqliteKeyStore({ path, masterKey, writerWorker }),
      storedBytes: async (keyId) => {
        const db = new DatabaseSync(path, { readOnly: true });
        try {
          const row = db.prepare('SELECT key FROM data_keys WHERE key_id = ?').get(keyId) as
            { key: Uint8Array } | undefined;
          return row ? Buffer.from(row.key) : null;
        } finally {
          db.close();
        }
      },
      dispose: async () => rmSync(dir, { recursive: true, force: true }),
    };
  });

describe('SqliteKeyStore on disk', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = freshDir();
  });
  afterEach(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('leaves no copy of a destroyed key in any file of the data directory', async () => {
    const store = await openKeyStore({
      readStore: 'sqlite',
      mongodbUri: undefined,
      dataDir,
      keyStoreMasterKey: undefined,
    });
    const cipher = new ContentCipher(store);
    // Enough keys around the doomed ones to span many pages, so deletes rewrite pages rather than drop them.
    const neighbours = [];
    for (let i = 0; i < 300; i++) neighbours.push(await store.obtain(`neighbour_${i}`, `grp_${i % 7}`));
    const doomed = await store.obtain('doomed', 'grp_doomed');
    const sealed = await cipher.seal('conversation_1', 'user_1', 'a message the user will erase');
    const sealedKey = (await store.getMany(['conversation_1'])).get('conversation_1')!;
    for (let i = 0; i < 5; i++) await store.obtain(`user_1_other_${i}`, 'user_1');
    const groupKeys = [...(await store.getMany([0, 1, 2, 3, 4].map((i) => `user_1_other_${i}`))).values()];

    // The search can find them: raw keys lie in keys.db until destroyed.
    for (const key of [doomed, sealedKey, ...groupKeys]) expect(filesHolding(dataDir, key)).toHaveLength(1);

    await store.destroy('doomed');
    expect(await store.destroyGroup('user_1')).toBe(6);
    expect(await cipher.open(sealed)).toBeNull();
    for (const key of [doomed, sealedKey, ...groupKeys]) expect(filesHolding(dataDir, key)).toEqual([]);
    await store.close();
    for (const key of [doomed, sealedKey, ...groupKeys]) expect(filesHolding(dataDir, key)).toEqual([]);
    // Only the database file: the last connection to close removed the log and its index.
    expect([...filesUnder(dataDir).keys()]).toEqual([join(dataDir, 'keys.db')]);

    const reopened = await openKeyStore({
      readStore: 'sqlite',
      mongodbUri: undefined,
      dataDir,
      keyStoreMasterKey: undefined,
    });
    const kept = await reopened.getMany(neighbours.map((_, i) => `neighbour_${i}`));
    expect(kept.size).toBe(300);
    neighbours.forEach((key, i) => expect(kept.get(`neighbour_${i}`)!.equals(key)).toBe(true));
    await reopened.close();
  });

  it('seals bytes so that the stored form holds nothing of them, and destroying the key shreds them', async () => {
    const store = new SqliteKeyStore({ path: join(dataDir, 'keys.db') });
    const cipher = new ContentCipher(store);
    const plain = Buffer.from('file contents FILE-MARKER-1234567890', 'utf8');
    const first = await cipher.sealBytes('run_1', 'cnv_1', plain);
    const second = await cipher.sealBytes('run_1', 'cnv_1', plain);
    expect(first.includes(Buffer.from('FILE-MARKER'))).toBe(false);
    expect(first.equals(second)).toBe(false); // a fresh iv each time: equal files are not linkable
    expect(cipher.isSealedBytes(first)).toBe(true);
    expect(cipher.isSealedBytes(plain)).toBe(false);
    expect((await cipher.openBytes(first))!.equals(plain)).toBe(true);
    const altered = Buffer.from(first);
    altered[altered.length - 1]! ^= 1;
    await expect(cipher.openBytes(altered)).rejects.toThrow('failed authentication');
    await expect(cipher.openBytes(plain)).rejects.toThrow('not sealed');
    expect(await store.destroyGroup('cnv_1')).toBe(1);
    expect(await cipher.openBytes(first)).toBeNull();
    await store.close();
  });

  it('commits new keys in the writer thread: the event loop runs on meanwhile, and the key is on disk once obtained', async () => {
    const path = join(dataDir, 'keys.db');
    const store = new SqliteKeyStore({ path, writerWorker: COMPILED_WRITER });
    const order: string[] = [];
    setImmediate(() => order.push('event loop'));
    const key = await store.obtain('msg_1', 'cnv_1');
    order.push('obtained');
    expect(order).toEqual(['event loop', 'obtained']);
    const other = new DatabaseSync(path, { readOnly: true });
    expect(
      Buffer.from(
        (other.prepare('SELECT key FROM data_keys WHERE key_id = ?').get('msg_1') as { key: Uint8Array }).key,
      ).equals(key),
    ).toBe(true);
    other.close();
    // In this thread (no writer), the same call holds the event loop until its commit.
    const inline = new SqliteKeyStore({ path: join(dataDir, 'inline.db'), writerWorker: null });
    const inlineOrder: string[] = [];
    setImmediate(() => inlineOrder.push('event loop'));
    await inline.obtain('msg_1', 'cnv_1');
    inlineOrder.push('obtained');
    expect(inlineOrder).toEqual(['obtained']);
    await Promise.all([store.close(), inline.close()]);
  });

  it.each([
    ['in this thread', null],
    ['in the writer thread', COMPILED_WRITER],
  ] as const)(
    'gives the key another process created between its read and its insert, not its own (%s)',
    async (_where, writerWorker) => {
      const path = join(dataDir, 'keys.db');
      const masterKey = Buffer.alloc(32, 7);
      const mine = new SqliteKeyStore({ path, masterKey, writerWorker });
      const theirs = new SqliteKeyStore({ path, masterKey, writerWorker: null });
      const read = mine.getMany.bind(mine);
      let theirKey: Buffer | null = null;
      // The other process creates msg_2 just after this store found it missing.
      mine.getMany = async (keyIds) => {
        const found = await read(keyIds);
        if (theirKey === null && keyIds.includes('msg_2')) theirKey = await theirs.obtain('msg_2', 'cnv_1');
        return found;
      };
      const keys = await mine.obtainMany([
        { keyId: 'msg_1', group: 'cnv_1' },
        { keyId: 'msg_2', group: 'cnv_1' },
      ]);
      expect(keys.get('msg_2')!.equals(theirKey!)).toBe(true);
      expect(keys.get('msg_1')!.equals((await theirs.getMany(['msg_1'])).get('msg_1')!)).toBe(true);
      await Promise.all([mine.close(), theirs.close()]);
    },
  );

  it('fails an obtain whose writer thread ends, creating nothing, and tries a new thread next time', async () => {
    const path = join(dataDir, 'keys.db');
    const broken = new URL('data:text/javascript,process.exit(3)');
    const store = new SqliteKeyStore({ path, writerWorker: broken });
    await expect(
      store.obtainMany([
        { keyId: 'a', group: 'g' },
        { keyId: 'b', group: 'g' },
      ]),
    ).rejects.toThrow('exit code 3');
    expect((await store.getMany(['a', 'b'])).size).toBe(0);
    await expect(store.obtain('a', 'g')).rejects.toThrow('exit code 3');
    await store.close();
    const working = new SqliteKeyStore({ path, writerWorker: COMPILED_WRITER });
    const key = await working.obtain('a', 'g');
    expect((await working.getMany(['a'])).get('a')!.equals(key)).toBe(true);
    await working.close();
  });

  it('leaves no copy of a destroyed key created in the writer thread, nor any file but keys.db', async () => {
    const store = new SqliteKeyStore({ path: join(dataDir, 'keys.db'), writerWorker: COMPILED_WRITER });
    for (let i = 0; i < 100; i++) await store.obtain(`neighbour_${i}`, `grp_${i % 7}`);
    const doomed = await store.obtain('doomed', 'grp_doomed');
    const group = await store.obtainMany([0, 1, 2].map((i) => ({ keyId: `cnv_key_${i}`, group: 'cnv' })));
    for (const key of [doomed, ...group.values()]) expect(filesHolding(dataDir, key)).toHaveLength(1);
    await store.destroy('doomed');
    expect(await store.destroyGroup('cnv')).toBe(3);
    await store.close();
    for (const key of [doomed, ...group.values()]) expect(filesHolding(dataDir, key)).toEqual([]);
    expect([...filesUnder(dataDir).keys()]).toEqual([join(dataDir, 'keys.db')]);
  });

  it('converts a database made with a rollback journal to a write-ahead log', async () => {
    const path = join(dataDir, 'keys.db');
    const journal = new DatabaseSync(path);
    journal.exec('PRAGMA journal_mode = DELETE; CREATE TABLE t (x)');
    journal.close();
    const store = new SqliteKeyStore({ path });
    const doomed = await store.obtain('doomed', 'grp');
    await store.destroy('doomed');
    expect(filesHolding(dataDir, doomed)).toEqual([]);
    await store.close();
    const check = new DatabaseSync(path);
    expect(check.prepare('PRAGMA journal_mode').get()).toEqual({ journal_mode: 'wal' });
    check.close();
    expect(filesHolding(dataDir, doomed)).toEqual([]);
  });

  it('truncates at opening a log that still holds a destroyed key (a process died before truncating it)', async () => {
    const path = join(dataDir, 'keys.db');
    await new SqliteKeyStore({ path }).close();
    // What a process that died between a destruction's commit and the log's truncation leaves: the key deleted from
    // the table, its page as it was created still in the log (this connection stays open, as the dead one's file did).
    const dead = new DatabaseSync(path);
    dead.exec('PRAGMA secure_delete = ON; PRAGMA wal_autocheckpoint = 0;');
    const doomed = Buffer.from('an erased conversation key 0123456789abcdef');
    dead
      .prepare('INSERT INTO data_keys (key_id, grp, key, created_at) VALUES (?, ?, ?, ?)')
      .run('k', 'g', doomed, 1);
    dead.exec("DELETE FROM data_keys WHERE key_id = 'k'");
    expect(filesHolding(dataDir, doomed)).toEqual([`${path}-wal`]);
    const store = new SqliteKeyStore({ path });
    expect(filesHolding(dataDir, doomed)).toEqual([]);
    expect((await store.getMany(['k'])).size).toBe(0);
    await store.close();
    dead.close();
  });
});

describe('openKeyStore', () => {
  it('opens the SQLite store at <dataDir>/keys.db with the configured master key', async () => {
    const dataDir = freshDir();
    try {
      const masterKey = Buffer.alloc(32, 7);
      const store = await openKeyStore({
        readStore: 'sqlite',
        mongodbUri: undefined,
        dataDir,
        keyStoreMasterKey: masterKey,
      });
      expect(store).toBeInstanceOf(SqliteKeyStore);
      const key = await store.obtain('k', 'g');
      await store.close();
      expect(readdirSync(dataDir)).toEqual(['keys.db']);
      const sameMaster = new SqliteKeyStore({ path: join(dataDir, 'keys.db'), masterKey });
      expect((await sameMaster.getMany(['k'])).get('k')!.equals(key)).toBe(true);
      await sameMaster.close();
      const withoutMaster = new SqliteKeyStore({ path: join(dataDir, 'keys.db') });
      await expect(withoutMaster.getMany(['k'])).rejects.toThrow(/KEY_STORE_MASTER_KEY is not set/);
      await withoutMaster.close();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('refuses MongoDB without a URI rather than falling back to SQLite', async () => {
    await expect(
      openKeyStore({
        readStore: 'mongodb',
        mongodbUri: undefined,
        dataDir: tmpdir(),
        keyStoreMasterKey: undefined,
      }),
    ).rejects.toThrow(/MONGODB_URI/);
  });
});
