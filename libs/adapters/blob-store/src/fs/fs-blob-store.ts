// Embedded blob store: one file per blob under a directory, sharded by the first two hex digits of the hash
// (`ab/sha256-ab…`) so no directory grows huge. A blob appears only complete: it is written to a temporary file in
// its shard directory, flushed to disk, then renamed into place (atomic on the same file system). Concurrent puts
// of the same content each write their own temporary file and rename over one another with identical bytes. A blob's
// modification time is when its content was last put (the listing's `storedAt`).
import { randomBytes } from 'node:crypto';
import type { Stats } from 'node:fs';
import {
  mkdir,
  open,
  readdir,
  readFile,
  rename,
  stat,
  unlink,
  utimes,
  type FileHandle,
} from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '#kernel';
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

export interface FsBlobStoreOptions {
  /** The root directory; created on first write. */
  readonly dir: string;
  /** Largest blob accepted; default 100 MiB. */
  readonly maxBytes?: number;
}

/** Temporary files end with this; they never match a blob id, so reads never see one. */
const TEMP_SUFFIX = '.tmp';

/** A shard directory: the first two hex digits of the hashes it holds. */
const SHARD = /^[0-9a-f]{2}$/;

const errorCode = (error: unknown): string | undefined => (error as NodeJS.ErrnoException).code;
const isMissing = (error: unknown): boolean => errorCode(error) === 'ENOENT';

export class FsBlobStore implements BlobStore {
  private readonly dir: string;
  private readonly maxBytes: number;

  constructor(options: FsBlobStoreOptions) {
    this.dir = options.dir;
    this.maxBytes = checkMaxBytes(options.maxBytes);
  }

  /** The file of a blob; the id is validated first, so the path stays inside the store. */
  pathOf(id: string): string {
    assertBlobId(id);
    return join(this.dir, id.slice('sha256-'.length, 'sha256-'.length + 2), id);
  }

  // The content type is not kept: the port never returns it (see BlobMeta).
  async put(bytes: Uint8Array | Buffer, _meta?: BlobMeta): Promise<StoredBlob> {
    const { buffer, ...blob } = addressBytes(bytes, this.maxBytes);
    const path = this.pathOf(blob.id);
    if (await this.putAgain(path)) return blob;

    const shard = dirname(path);
    const created = await mkdir(shard, { recursive: true, mode: PRIVATE_DIR_MODE });
    const temp = join(shard, `.${blob.id}.${process.pid}.${randomBytes(6).toString('hex')}${TEMP_SUFFIX}`);
    try {
      const handle = await open(temp, 'wx', PRIVATE_FILE_MODE);
      try {
        await handle.writeFile(buffer);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temp, path);
    } catch (error) {
      await unlink(temp).catch(() => undefined);
      throw error;
    }
    // Make the new directory entries durable too, not only the bytes.
    await syncDirectory(shard);
    if (created !== undefined) await syncDirectory(this.dir);
    return blob;
  }

  async get(id: string): Promise<Buffer | null> {
    const path = this.pathOf(id);
    try {
      return await readFile(path);
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  async stream(id: string): Promise<Readable | null> {
    const path = this.pathOf(id);
    let handle: FileHandle;
    try {
      // Opened now, so a delete after this call does not cut the stream short (the open file survives unlink).
      handle = await open(path, 'r');
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
    return handle.createReadStream();
  }

  async has(id: string): Promise<boolean> {
    return this.exists(this.pathOf(id));
  }

  async delete(id: string): Promise<boolean> {
    const path = this.pathOf(id);
    try {
      await unlink(path);
      return true;
    } catch (error) {
      if (isMissing(error)) return false;
      throw error;
    }
  }

  async *list(): AsyncIterable<ListedBlob> {
    const shards = await readdirOrEmpty(this.dir);
    for (const shard of shards.sort()) {
      if (!SHARD.test(shard)) continue;
      const names = await readdirOrEmpty(join(this.dir, shard));
      for (const name of names.sort()) {
        // Temporary files (`.sha256-….tmp`) and anything else that is not a blob in its own shard are not blobs.
        if (!isBlobId(name) || name.slice('sha256-'.length, 'sha256-'.length + 2) !== shard) continue;
        let info: Stats;
        try {
          info = await stat(join(this.dir, shard, name));
        } catch (error) {
          if (isMissing(error)) continue; // deleted since the directory was read
          throw error;
        }
        // A Date of this realm (stat's own come from Node's internals, which jest's sandbox does not share).
        if (info.isFile()) yield { id: name, sizeBytes: info.size, storedAt: new Date(info.mtimeMs) };
      }
    }
  }

  async close(): Promise<void> {
    // Nothing is held open between calls.
  }

  /**
   * Content already stored is put again by moving its modification time to now, so a sweep sees it as just stored
   * while its writer appends the event that references it. False when it is not stored (write it).
   */
  private async putAgain(path: string): Promise<boolean> {
    const now = new Date();
    try {
      await utimes(path, now, now);
      return true;
    } catch (error) {
      if (isMissing(error)) return false;
      // A file this process may read but not touch (another owner, a read-only mount) is stored all the same.
      if (['EPERM', 'EACCES', 'EROFS'].includes(errorCode(error) ?? '')) return this.exists(path);
      throw error;
    }
  }

  private async exists(path: string): Promise<boolean> {
    try {
      await stat(path);
      return true;
    } catch (error) {
      if (isMissing(error)) return false;
      throw error;
    }
  }
}

/** The names in a directory, none when it does not exist (a store nothing was written to yet). */
async function readdirOrEmpty(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch (error) {
    if (isMissing(error) || errorCode(error) === 'ENOTDIR') return [];
    throw error;
  }
}

/** fsync of a directory: POSIX needs it for a rename or a new entry to survive a crash; Windows refuses it. */
async function syncDirectory(dir: string): Promise<void> {
  if (process.platform === 'win32') return;
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
