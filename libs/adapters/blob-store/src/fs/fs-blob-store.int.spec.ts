// The file-system blob store: the shared contract, then what only files can show (layout, no leftover temporary
// files, the size limit, persistence across instances) and the embedded choice of openBlobStore.
import { randomBytes } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { ValidationError } from '#kernel';
import { blobStoreContract } from '../blob-store.contract.js';
import { DEFAULT_MAX_BLOB_BYTES, type BlobStore, type ListedBlob } from '../blob-store.port.js';
import { openBlobStore } from '../open-blob-store.js';
import { FsBlobStore } from './fs-blob-store.js';

const freshDir = (): string => mkdtempSync(join(tmpdir(), 'blobs-'));

/** Every file under dir, as paths relative to it. */
const filesUnder = (dir: string): string[] =>
  existsSync(dir)
    ? readdirSync(dir, { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile())
        .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
        .sort()
    : [];

async function listed(store: BlobStore): Promise<ListedBlob[]> {
  const blobs: ListedBlob[] = [];
  for await (const blob of store.list()) blobs.push(blob);
  return blobs;
}

const HOUR = 60 * 60 * 1000;

blobStoreContract('file system', async () => {
  const dir = freshDir();
  return {
    store: new FsBlobStore({ dir }),
    storedCopies: async (id) => filesUnder(dir).filter((file) => file.includes(id)).length,
    dispose: async () => rmSync(dir, { recursive: true, force: true }),
  };
});

describe('FsBlobStore on disk', () => {
  let dir: string;
  beforeEach(() => {
    dir = freshDir();
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps each blob in a file named by its id, in a directory named by its first two hex digits', async () => {
    const store = new FsBlobStore({ dir });
    const bytes = randomBytes(100);
    const { id, sha256 } = await store.put(bytes);
    expect(filesUnder(dir)).toEqual([`${sha256.slice(0, 2)}${sep}${id}`]);
    expect(readFileSync(join(dir, sha256.slice(0, 2), id)).equals(bytes)).toBe(true);
    expect(store.pathOf(id)).toBe(join(dir, sha256.slice(0, 2), id));
  });

  it('leaves no temporary files after puts, repeated puts and concurrent puts', async () => {
    const store = new FsBlobStore({ dir });
    const shared = randomBytes(256 * 1024);
    const distinct = Array.from({ length: 20 }, () => randomBytes(10_000));
    await store.put(shared);
    await store.put(shared);
    await Promise.all([
      ...Array.from({ length: 10 }, () => store.put(shared)),
      ...distinct.map((bytes) => store.put(bytes)),
    ]);
    const files = filesUnder(dir);
    expect(files).toHaveLength(21);
    for (const file of files) expect(file).toMatch(/^([0-9a-f]{2})[\\/]sha256-\1[0-9a-f]{62}$/);
  });

  it('refuses a blob above maxBytes with blob_too_large and writes nothing', async () => {
    const store = new FsBlobStore({ dir, maxBytes: 1024 });
    await expect(store.put(randomBytes(1024))).resolves.toMatchObject({ sizeBytes: 1024 });
    const tooLarge = store.put(randomBytes(1025));
    await expect(tooLarge).rejects.toBeInstanceOf(ValidationError);
    await expect(tooLarge).rejects.toMatchObject({ kind: 'validation', code: 'blob_too_large' });
    expect(filesUnder(dir)).toHaveLength(1);
  });

  it('limits blobs to 100 MiB by default', async () => {
    expect(DEFAULT_MAX_BLOB_BYTES).toBe(100 * 1024 * 1024);
    const store = new FsBlobStore({ dir });
    await expect(store.put(Buffer.alloc(DEFAULT_MAX_BLOB_BYTES + 1))).rejects.toMatchObject({
      code: 'blob_too_large',
    });
    expect(filesUnder(dir)).toEqual([]);
  });

  it('refuses a nonsensical maxBytes at construction', () => {
    expect(() => new FsBlobStore({ dir, maxBytes: -1 })).toThrow(RangeError);
    expect(() => new FsBlobStore({ dir, maxBytes: 1.5 })).toThrow(RangeError);
  });

  it('finds blobs written by an earlier instance on the same directory', async () => {
    const bytes = randomBytes(5000);
    const first = new FsBlobStore({ dir });
    const { id } = await first.put(bytes);
    await first.close();
    const second = new FsBlobStore({ dir });
    expect((await second.get(id))!.equals(bytes)).toBe(true);
    expect(await second.delete(id)).toBe(true);
    expect(filesUnder(dir)).toEqual([]);
  });

  it('lists nothing before the first put', async () => {
    expect(await listed(new FsBlobStore({ dir: join(dir, 'not-yet') }))).toEqual([]);
  });

  it('lists only blobs: not temporary files, strays, or a blob file outside its shard', async () => {
    const store = new FsBlobStore({ dir });
    const { id, sha256 } = await store.put(randomBytes(100));
    const shard = join(dir, sha256.slice(0, 2));
    // What a crashed put leaves, and what an operator might drop in the directory.
    writeFileSync(join(shard, `.${id}.123.abcdef.tmp`), randomBytes(50));
    writeFileSync(join(shard, `${id}.tmp`), randomBytes(50));
    writeFileSync(join(shard, 'notes.txt'), 'x');
    writeFileSync(join(dir, 'README'), 'x');
    const elsewhere = `sha256-${sha256.slice(0, 2) === 'ff' ? '00' : 'ff'}${sha256.slice(2)}`;
    writeFileSync(join(shard, elsewhere), 'x');
    mkdirSync(join(dir, 'zz'));
    writeFileSync(join(dir, 'zz', id), 'x');
    mkdirSync(join(shard, `sha256-${sha256.slice(0, 2)}${'0'.repeat(62)}`));

    expect((await listed(store)).map(({ id, sizeBytes }) => ({ id, sizeBytes }))).toEqual([
      { id, sizeBytes: 100 },
    ]);
  });

  it("lists a blob's modification time as when it was stored, and a put of the same content moves it to now", async () => {
    const store = new FsBlobStore({ dir });
    const bytes = randomBytes(100);
    const { id } = await store.put(bytes);
    const longAgo = new Date(Date.now() - 3 * HOUR);
    utimesSync(store.pathOf(id), longAgo, longAgo);
    expect((await listed(store))[0]!.storedAt.getTime()).toBe(statSync(store.pathOf(id)).mtime.getTime());
    expect((await listed(store))[0]!.storedAt.getTime()).toBeLessThan(Date.now() - 2 * HOUR);

    // An upload of content an earlier, abandoned upload left behind: a sweep must see it as new again.
    await store.put(bytes);
    expect((await listed(store))[0]!.storedAt.getTime()).toBeGreaterThan(Date.now() - HOUR);
    expect(filesUnder(dir)).toHaveLength(1);
  });

  it('keeps a stream opened before a delete readable to the end', async () => {
    const store = new FsBlobStore({ dir });
    const bytes = randomBytes(2 * 1024 * 1024);
    const { id } = await store.put(bytes);
    const stream = await store.stream(id);
    expect(await store.delete(id)).toBe(true);
    const parts: Buffer[] = [];
    for await (const part of stream!) parts.push(part as Buffer);
    expect(Buffer.concat(parts).equals(bytes)).toBe(true);
  });
});

describe('openBlobStore', () => {
  it('opens the file-system store under <dataDir>/blobs unless the read store is MongoDB', async () => {
    const dataDir = freshDir();
    try {
      const store = await openBlobStore({ readStore: 'sqlite', mongodbUri: undefined, dataDir });
      expect(store).toBeInstanceOf(FsBlobStore);
      const { id, sha256 } = await store.put(Buffer.from('hello'));
      expect(readFileSync(join(dataDir, 'blobs', sha256.slice(0, 2), id), 'utf8')).toBe('hello');
      await store.close();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('refuses MongoDB without a URI rather than falling back to files', async () => {
    await expect(
      openBlobStore({ readStore: 'mongodb', mongodbUri: undefined, dataDir: tmpdir() }),
    ).rejects.toThrow(/MONGODB_URI/);
  });
});
