// The GridFS blob store: the shared contract and its specifics against a real MongoDB, in a throwaway database,
// when MONGODB_URI is set.
import { randomBytes, randomUUID } from 'node:crypto';
import { finished } from 'node:stream/promises';
import { mongo } from 'mongoose';
import { openMongoConnection, type MongoConnection } from '#kernel';
import { skipWithReason } from '#testing/fixtures';
import { blobStoreContract } from '../blob-store.contract.js';
import { GridFsBlobStore } from './gridfs-blob-store.js';

const uri = process.env.MONGODB_URI;
const suite = 'BlobStore contract: mongodb gridfs';

if (uri) {
  const dbName = `blobs_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  let opened: MongoConnection;
  let db: mongo.Db;
  beforeAll(async () => {
    opened = await openMongoConnection(uri, { dbName });
    db = opened.db;
  });
  afterAll(async () => {
    await db.dropDatabase();
    await opened.connection.close();
  });

  blobStoreContract('mongodb gridfs', async () => ({
    store: await GridFsBlobStore.connect({ uri, dbName, bucketName: 'contract' }),
    storedCopies: (id) => db.collection('contract.files').countDocuments({ filename: id }),
  }));

  describe('GridFsBlobStore specifics', () => {
    let store: GridFsBlobStore;
    beforeAll(async () => {
      store = await GridFsBlobStore.connect({ uri, dbName, bucketName: 'specifics', maxBytes: 1024 });
    });
    afterAll(async () => {
      await store.close();
    });

    it('names each GridFS file by the blob id and keeps the content type as metadata', async () => {
      const { id, sha256 } = await store.put(randomBytes(100), { contentType: 'image/png' });
      const file = await db.collection('specifics.files').findOne({ filename: id });
      expect(file).toMatchObject({
        filename: id,
        length: 100,
        metadata: { sha256, contentType: 'image/png' },
      });
    });

    it('deletes every copy of a blob and its chunks', async () => {
      const bytes = randomBytes(1000);
      const { id } = await store.put(bytes);
      // A copy left by a writer that raced past the existence check.
      const duplicate = new mongo.GridFSBucket(db, { bucketName: 'specifics' }).openUploadStream(id);
      duplicate.end(bytes);
      await finished(duplicate);
      const fileIds = (await db.collection('specifics.files').find({ filename: id }).toArray()).map(
        (f) => f._id,
      );
      expect(fileIds).toHaveLength(2);

      expect(await store.delete(id)).toBe(true);
      expect(await db.collection('specifics.files').countDocuments({ filename: id })).toBe(0);
      expect(await db.collection('specifics.chunks').countDocuments({ files_id: { $in: fileIds } })).toBe(0);
      expect(await store.delete(id)).toBe(false);
    });

    it('lists a blob once whatever its copies, as of its latest put; a put of stored content counts', async () => {
      const bytes = randomBytes(500);
      const { id } = await store.put(bytes);
      const longAgo = new Date(Date.now() - 3 * 60 * 60 * 1000);
      await db.collection('specifics.files').updateOne({ filename: id }, { $set: { uploadDate: longAgo } });
      const listedOf = async () => {
        const found = [];
        for await (const blob of store.list()) if (blob.id === id) found.push(blob);
        return found;
      };
      expect(await listedOf()).toEqual([{ id, sizeBytes: 500, storedAt: longAgo }]);

      // An upload of content an abandoned upload left behind: a sweep must see it as new again.
      await store.put(bytes);
      const [again] = await listedOf();
      expect(again!.storedAt.getTime()).toBeGreaterThan(Date.now() - 60 * 60 * 1000);
      expect(await db.collection('specifics.files').findOne({ filename: id })).toMatchObject({
        uploadDate: longAgo,
      });

      // A copy left by a writer that raced past the existence check is not a second blob.
      const duplicate = new mongo.GridFSBucket(db, { bucketName: 'specifics' }).openUploadStream(id);
      duplicate.end(bytes);
      await finished(duplicate);
      expect(await listedOf()).toHaveLength(1);
    });

    it('refuses a blob above maxBytes with blob_too_large and writes nothing', async () => {
      const before = await db.collection('specifics.files').countDocuments();
      await expect(store.put(randomBytes(1025))).rejects.toMatchObject({ code: 'blob_too_large' });
      expect(await db.collection('specifics.files').countDocuments()).toBe(before);
    });
  });
} else {
  skipWithReason(
    suite,
    'MONGODB_URI is not set (start MongoDB, e.g. docker compose -f docker/compose.yml up mongodb, and set MONGODB_URI=mongodb://localhost:27017/?directConnection=true)',
  );
  // Jest fails a file without tests: this one records why the contract did not run.
  it(`${suite} did not run: no MONGODB_URI`, () => expect(uri).toBeUndefined());
}
