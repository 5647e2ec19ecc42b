// One contract for every BlobStore adapter: the file system always, GridFS when MONGODB_URI is set.
import { createHash, randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import { ValidationError } from '#kernel';
import type { BlobStore, ListedBlob } from './blob-store.port.js';

export interface BlobStoreUnderTest {
  readonly store: BlobStore;
  /** How many copies of a blob the adapter physically holds (files, GridFS file documents). */
  storedCopies(id: string): Promise<number>;
  /** Removes what the suite created (its directory, its database). */
  dispose?(): Promise<void>;
}

const sha256Hex = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');
const EMPTY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
const MB = 1024 * 1024;
const byId = (a: { id: string }, b: { id: string }): number => a.id.localeCompare(b.id);

async function listed(store: BlobStore): Promise<ListedBlob[]> {
  const blobs: ListedBlob[] = [];
  for await (const blob of store.list()) blobs.push(blob);
  return blobs;
}

async function readStream(stream: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of stream) parts.push(part as Buffer);
  return Buffer.concat(parts);
}

export function blobStoreContract(adapter: string, open: () => Promise<BlobStoreUnderTest>): void {
  describe(`BlobStore contract: ${adapter}`, () => {
    let subject: BlobStoreUnderTest;
    let store: BlobStore;
    beforeAll(async () => {
      subject = await open();
      store = subject.store;
    });
    afterAll(async () => {
      await store.close();
      await subject.dispose?.();
    });

    it('round-trips binary bytes exactly, from a Buffer or a Uint8Array', async () => {
      const everyByte = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
      const random = randomBytes(64 * 1024);
      for (const bytes of [everyByte, random, new Uint8Array(randomBytes(1000))]) {
        const { id } = await store.put(bytes);
        const back = await store.get(id);
        expect(Buffer.isBuffer(back)).toBe(true);
        expect(back!.equals(bytes)).toBe(true);
      }
    });

    it('stores zero bytes as a blob, not as an absence', async () => {
      const blob = await store.put(new Uint8Array(0));
      expect(blob).toEqual({ id: `sha256-${EMPTY_SHA256}`, sizeBytes: 0, sha256: EMPTY_SHA256 });
      expect(await store.has(blob.id)).toBe(true);
      const back = await store.get(blob.id);
      expect(back).not.toBeNull();
      expect(back!.length).toBe(0);
      const stream = await store.stream(blob.id);
      expect(stream).not.toBeNull();
      expect((await readStream(stream!)).length).toBe(0);
    });

    it('round-trips 5 MB through get and stream', async () => {
      const bytes = randomBytes(5 * MB);
      const blob = await store.put(bytes, { contentType: 'application/octet-stream' });
      expect(blob.sizeBytes).toBe(5 * MB);
      expect((await store.get(blob.id))!.equals(bytes)).toBe(true);
      expect((await readStream((await store.stream(blob.id))!)).equals(bytes)).toBe(true);
    });

    it('addresses a blob by the SHA-256 of its bytes and reports its size', async () => {
      expect(await store.put(Buffer.from('abc'))).toEqual({
        id: 'sha256-ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
        sizeBytes: 3,
        sha256: 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
      });
      const bytes = randomBytes(12345);
      expect(await store.put(bytes)).toEqual({
        id: `sha256-${sha256Hex(bytes)}`,
        sizeBytes: 12345,
        sha256: sha256Hex(bytes),
      });
    });

    it('stores only the bytes of a Uint8Array view, not its whole underlying buffer', async () => {
      const whole = randomBytes(300);
      const view = new Uint8Array(whole.buffer, whole.byteOffset + 100, 50);
      const blob = await store.put(view);
      expect(blob.sha256).toBe(sha256Hex(whole.subarray(100, 150)));
      expect(blob.sizeBytes).toBe(50);
      expect((await store.get(blob.id))!.equals(whole.subarray(100, 150))).toBe(true);
    });

    it('gives the same content the same id and stores it once', async () => {
      const bytes = randomBytes(4096);
      const first = await store.put(bytes, { contentType: 'text/plain' });
      const again = await store.put(new Uint8Array(bytes), { contentType: 'application/pdf' });
      expect(again).toEqual(first);
      expect(await subject.storedCopies(first.id)).toBe(1);
      const other = await store.put(Buffer.concat([bytes, Buffer.from([0])]));
      expect(other.id).not.toBe(first.id);
      expect((await store.get(first.id))!.equals(bytes)).toBe(true);
    });

    it('deletes a blob for good; a second delete answers false; a new put stores it again', async () => {
      const bytes = randomBytes(2048);
      const { id } = await store.put(bytes);
      expect(await store.has(id)).toBe(true);
      expect(await store.delete(id)).toBe(true);
      expect(await store.has(id)).toBe(false);
      expect(await store.get(id)).toBeNull();
      expect(await store.stream(id)).toBeNull();
      expect(await subject.storedCopies(id)).toBe(0);
      expect(await store.delete(id)).toBe(false);

      await store.put(bytes);
      expect((await store.get(id))!.equals(bytes)).toBe(true);
    });

    it('lists every stored blob once, with its size and when it was stored', async () => {
      // The suite shares one store: what this case put is what the listing gained.
      const before = await listed(store);
      const puttingFrom = Date.now();
      const contents = [randomBytes(10), randomBytes(70_000), Buffer.alloc(0), randomBytes(1)];
      const blobs = [];
      for (const bytes of contents) blobs.push(await store.put(bytes));
      await store.put(contents[0]!);

      const after = await listed(store);
      const ids = after.map((blob) => blob.id);
      expect(new Set(ids).size).toBe(ids.length);
      const known = new Set(before.map((blob) => blob.id));
      const gained = after.filter((blob) => !known.has(blob.id));
      expect(gained.map(({ id, sizeBytes }) => ({ id, sizeBytes })).sort(byId)).toEqual(
        blobs
          .filter((blob) => !known.has(blob.id))
          .map(({ id, sizeBytes }) => ({ id, sizeBytes }))
          .sort(byId),
      );
      expect(ids).toEqual(expect.arrayContaining(blobs.map((blob) => blob.id)));
      expect(ids).toEqual(expect.arrayContaining([...known]));
      for (const blob of gained) {
        expect(blob.storedAt).toBeInstanceOf(Date);
        // Within the clock's granularity (file systems round modification times).
        expect(blob.storedAt.getTime()).toBeGreaterThanOrEqual(puttingFrom - 5_000);
      }
      for (const blob of after) {
        expect(await store.has(blob.id)).toBe(true);
        expect((await store.get(blob.id))!.length).toBe(blob.sizeBytes);
      }
    });

    it('no longer lists a deleted blob', async () => {
      const kept = await store.put(randomBytes(300));
      const deleted = await store.put(randomBytes(300));
      expect((await listed(store)).map((blob) => blob.id)).toEqual(
        expect.arrayContaining([kept.id, deleted.id]),
      );
      expect(await store.delete(deleted.id)).toBe(true);
      const ids = (await listed(store)).map((blob) => blob.id);
      expect(ids).toContain(kept.id);
      expect(ids).not.toContain(deleted.id);
    });

    it('answers null and false for a well-formed id it does not hold', async () => {
      const id = `sha256-${sha256Hex(randomBytes(32))}`;
      expect(await store.get(id)).toBeNull();
      expect(await store.stream(id)).toBeNull();
      expect(await store.has(id)).toBe(false);
      expect(await store.delete(id)).toBe(false);
    });

    it('rejects malformed ids with a ValidationError on every operation', async () => {
      const hex = sha256Hex(Buffer.from('x'));
      const invalid: unknown[] = [
        '../../../etc/passwd',
        'sha256-xyz',
        '',
        hex,
        `sha256-${hex.toUpperCase()}`,
        `sha256-${hex.slice(1)}`,
        `sha256-${hex}0`,
        `sha256-${hex}\n`,
        `sha256-${hex}/../../x`,
        `../sha256-${hex}`,
        `md5-${hex}`,
        null,
        42,
      ];
      for (const id of invalid) {
        const given = id as string;
        const operations: (() => Promise<unknown>)[] = [
          () => store.get(given),
          () => store.stream(given),
          () => store.has(given),
          () => store.delete(given),
        ];
        for (const operation of operations) {
          const attempt = operation();
          await expect(attempt).rejects.toBeInstanceOf(ValidationError);
          await expect(attempt).rejects.toMatchObject({ kind: 'validation', code: 'invalid_blob_id' });
        }
      }
    });

    it('rejects a put of something that is not bytes', async () => {
      await expect(store.put('text' as unknown as Buffer)).rejects.toMatchObject({
        kind: 'validation',
        code: 'invalid_blob_bytes',
      });
    });

    it('keeps one intact copy when the same content is put concurrently', async () => {
      const bytes = randomBytes(MB);
      const results = await Promise.all(Array.from({ length: 8 }, () => store.put(bytes)));
      expect(new Set(results.map((r) => r.id)).size).toBe(1);
      const { id } = results[0]!;
      expect(id).toBe(`sha256-${sha256Hex(bytes)}`);
      expect((await store.get(id))!.equals(bytes)).toBe(true);
      expect(await subject.storedCopies(id)).toBe(1);
    });

    it('keeps every blob intact when different contents are put concurrently', async () => {
      const contents = Array.from({ length: 12 }, (_, i) => randomBytes(1000 + i * 5000));
      const blobs = await Promise.all(contents.map((bytes) => store.put(bytes)));
      const back = await Promise.all(blobs.map((blob) => store.get(blob.id)));
      back.forEach((bytes, i) => expect(bytes!.equals(contents[i]!)).toBe(true));
    });

    it('never shows a reader a partly written blob', async () => {
      const bytes = randomBytes(5 * MB);
      const id = `sha256-${sha256Hex(bytes)}`;
      let done = false;
      const writing = store.put(bytes).finally(() => (done = true));
      const seen: ('absent' | 'whole' | 'partial')[] = [];
      while (!done) {
        const read = await store.get(id);
        seen.push(read === null ? 'absent' : read.equals(bytes) ? 'whole' : 'partial');
      }
      await writing;
      expect(seen).not.toContain('partial');
      expect((await store.get(id))!.equals(bytes)).toBe(true);
    });
  });
}
