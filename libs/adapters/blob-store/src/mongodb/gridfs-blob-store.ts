// Production blob store: MongoDB GridFS through mongoose's connection and driver, one file per blob
// whose filename is the blob id. GridFS writes the chunks first and the file document last, so a blob is visible
// only once complete. Puts check for the id first; two puts racing past that check both upload, and each then
// removes every copy but the oldest, so the store converges on one copy and readers always pick that oldest one.
// A put of content already stored records when it was put again (`metadata.putAgainAt`): a blob's `storedAt` is
// the later of that and its upload date. The upload date itself never changes, since it decides which copy is oldest.
import type { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { mongo, type Connection } from 'mongoose';
import { openMongoConnection } from '#kernel';
import {
  addressBytes,
  assertBlobId,
  checkMaxBytes,
  isBlobId,
  type BlobMeta,
  type BlobStore,
  type ListedBlob,
  type StoredBlob,
} from '../blob-store.port.js';

export interface GridFsBlobStoreOptions {
  readonly uri: string;
  /** The GridFS bucket (collections `<bucketName>.files` and `<bucketName>.chunks`); default `blobs`. */
  readonly bucketName?: string;
  /** Database to use; default: the one named in the URI. */
  readonly dbName?: string;
  /** Largest blob accepted; default 100 MiB. */
  readonly maxBytes?: number;
}

/** The copy every reader and every deduplicating writer agrees on: the oldest. */
const OLDEST_FIRST = { uploadDate: 1, _id: 1 } as const;

/** When a copy's content was last put: its upload, or a later put of the same content. */
const storedAt = (file: mongo.GridFSFile): Date => {
  const putAgainAt: unknown = file.metadata?.putAgainAt;
  return putAgainAt instanceof Date && putAgainAt > file.uploadDate ? putAgainAt : file.uploadDate;
};

export class GridFsBlobStore implements BlobStore {
  private readonly bucket: mongo.GridFSBucket;
  private readonly files: mongo.Collection<mongo.GridFSFile>;
  private readonly chunks: mongo.Collection<{ files_id: mongo.ObjectId }>;

  private constructor(
    private readonly connection: Connection,
    db: mongo.Db,
    bucketName: string,
    private readonly maxBytes: number,
  ) {
    this.bucket = new mongo.GridFSBucket(db, { bucketName });
    this.files = db.collection<mongo.GridFSFile>(`${bucketName}.files`);
    this.chunks = db.collection<{ files_id: mongo.ObjectId }>(`${bucketName}.chunks`);
  }

  static async connect(options: GridFsBlobStoreOptions): Promise<GridFsBlobStore> {
    const maxBytes = checkMaxBytes(options.maxBytes);
    const { connection, db } = await openMongoConnection(options.uri, { dbName: options.dbName });
    // GridFS creates its own indexes ({ filename, uploadDate } among them) on the first upload.
    return new GridFsBlobStore(connection, db, options.bucketName ?? 'blobs', maxBytes);
  }

  async put(bytes: Uint8Array | Buffer, meta?: BlobMeta): Promise<StoredBlob> {
    const { buffer, ...blob } = addressBytes(bytes, this.maxBytes);
    const stored = await this.oldestCopy(blob.id);
    if (stored && (await this.putAgain(stored))) return blob;

    const metadata = { sha256: blob.sha256, ...(meta?.contentType ? { contentType: meta.contentType } : {}) };
    const upload = this.bucket.openUploadStream(blob.id, { metadata });
    upload.end(buffer);
    try {
      await finished(upload);
    } catch (error) {
      // Remove the chunks already written; a failed upload has no file document, so nobody reads them.
      await upload.abort().catch(() => undefined);
      throw error;
    }
    await this.removeDuplicates(blob.id);
    return blob;
  }

  async get(id: string): Promise<Buffer | null> {
    assertBlobId(id);
    // A copy may be removed while it is read (a delete, or a racing put's deduplication): look again.
    for (let attempt = 1; ; attempt++) {
      const file = await this.oldestCopy(id);
      if (!file) return null;
      try {
        const parts: Buffer[] = [];
        for await (const part of this.bucket.openDownloadStream(file._id)) parts.push(part as Buffer);
        return Buffer.concat(parts);
      } catch (error) {
        const removed = (await this.files.countDocuments({ _id: file._id }, { limit: 1 })) === 0;
        if (!removed || attempt === 3) throw error;
      }
    }
  }

  async stream(id: string): Promise<Readable | null> {
    assertBlobId(id);
    const file = await this.oldestCopy(id);
    return file ? this.bucket.openDownloadStream(file._id) : null;
  }

  async has(id: string): Promise<boolean> {
    assertBlobId(id);
    return (await this.files.countDocuments({ filename: id }, { limit: 1 })) > 0;
  }

  async delete(id: string): Promise<boolean> {
    assertBlobId(id);
    const copies = await this.files.find({ filename: id }, { projection: { _id: 1 } }).toArray();
    if (copies.length === 0) return false;
    return (await this.removeCopies(copies.map((copy) => copy._id))) > 0;
  }

  async *list(): AsyncIterable<ListedBlob> {
    // In the order of GridFS's { filename, uploadDate } index, so the copies of one blob (a racing put's, until it
    // removes its own) come one after the other and are listed once, as their latest put.
    const files = this.bucket.find(
      {},
      {
        sort: { filename: 1, uploadDate: 1 },
        projection: { filename: 1, length: 1, uploadDate: 1, metadata: 1 },
      },
    );
    let pending: { id: string; sizeBytes: number; storedAt: Date } | undefined;
    for await (const file of files) {
      if (!isBlobId(file.filename)) continue;
      const at = storedAt(file);
      if (pending && pending.id === file.filename) {
        if (at > pending.storedAt) pending.storedAt = at;
        continue;
      }
      if (pending) yield pending;
      pending = { id: file.filename, sizeBytes: file.length, storedAt: at };
    }
    if (pending) yield pending;
  }

  async close(): Promise<void> {
    await this.connection.close();
  }

  /** Records a put of content already stored; false when that copy has just been removed (upload it). */
  private async putAgain(file: mongo.GridFSFile): Promise<boolean> {
    const { matchedCount } = await this.files.updateOne(
      { _id: file._id },
      { $set: { 'metadata.putAgainAt': new Date() } },
    );
    return matchedCount > 0;
  }

  private oldestCopy(id: string): Promise<mongo.GridFSFile | null> {
    return this.files.findOne({ filename: id }, { sort: OLDEST_FIRST });
  }

  private async removeDuplicates(id: string): Promise<void> {
    const copies = await this.files
      .find({ filename: id }, { projection: { _id: 1 }, sort: OLDEST_FIRST })
      .toArray();
    if (copies.length > 1) await this.removeCopies(copies.slice(1).map((copy) => copy._id));
  }

  /** File documents first, so readers stop finding a copy before its chunks go. Returns the documents removed. */
  private async removeCopies(ids: mongo.ObjectId[]): Promise<number> {
    const { deletedCount } = await this.files.deleteMany({ _id: { $in: ids } });
    await this.chunks.deleteMany({ files_id: { $in: ids } });
    return deletedCount;
  }
}
