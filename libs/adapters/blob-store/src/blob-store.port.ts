// The blob store port: uploaded files and extracted text live here, never in events, so that deleting a blob
// removes the content for good while the log keeps who did what. Blobs are content-addressed (`sha256-<hex>`):
// the same bytes get the same id and are stored once, so a put is idempotent and safe to retry.
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { ValidationError } from '#kernel';

export interface StoredBlob {
  /** `sha256-<64 lowercase hex>` of the bytes. */
  readonly id: string;
  readonly sizeBytes: number;
  /** The 64 lowercase hex digits of the bytes' SHA-256. */
  readonly sha256: string;
}

export interface BlobMeta {
  /**
   * A hint for operators only: the store does not return it, and with content addressing the first writer's
   * value is the one kept. The owner of the blob (a document's events) records the content type it serves.
   */
  readonly contentType?: string;
}

/** One blob as a listing shows it. */
export interface ListedBlob {
  readonly id: string;
  readonly sizeBytes: number;
  /**
   * When the content was last put: a put of content already stored counts as storing it again, so a writer that
   * reuses an old blob and is about to reference it in an event sees it as just stored (see `list`).
   */
  readonly storedAt: Date;
}

export interface BlobStore {
  /**
   * Stores the bytes (once per content) and returns their address; a ValidationError `blob_too_large` if too big.
   * Putting content already stored stores nothing but moves its `storedAt` to now.
   */
  put(bytes: Uint8Array | Buffer, meta?: BlobMeta): Promise<StoredBlob>;
  /** The whole blob, or null when it is absent. */
  get(id: string): Promise<Buffer | null>;
  /** The blob as a stream, or null when it is absent. */
  stream(id: string): Promise<Readable | null>;
  has(id: string): Promise<boolean>;
  /** Removes the content for good; false when there was nothing to remove. */
  delete(id: string): Promise<boolean>;
  /**
   * Every blob held, each once, in no particular order, for sweeping what nothing references any more. A blob put or
   * deleted while the listing runs may or may not appear. A sweep keeps blobs whose `storedAt` is recent: a writer
   * puts the bytes before it appends the event that references them.
   */
  list(): AsyncIterable<ListedBlob>;
  close(): Promise<void>;
}

export const BLOB_STORE = Symbol('BLOB_STORE');

/** Uploads above this are refused unless an adapter is configured otherwise. */
export const DEFAULT_MAX_BLOB_BYTES = 100 * 1024 * 1024;

const BLOB_ID = /^sha256-[0-9a-f]{64}$/;

export const isBlobId = (value: unknown): value is string => typeof value === 'string' && BLOB_ID.test(value);

/** Every id that reaches an adapter passes here first, so an id can never name a path outside the store. */
export function assertBlobId(id: unknown): asserts id is string {
  if (!isBlobId(id)) {
    const shown = typeof id === 'string' ? JSON.stringify(id.slice(0, 80)) : typeof id;
    throw new ValidationError('invalid_blob_id', `${shown} is not a blob id (sha256-<64 lowercase hex>)`);
  }
}

/** Checks the input and computes its address; the returned buffer shares memory with the input (no copy). */
export function addressBytes(
  bytes: Uint8Array | Buffer,
  maxBytes: number,
): StoredBlob & { readonly buffer: Buffer } {
  if (!(bytes instanceof Uint8Array)) {
    throw new ValidationError('invalid_blob_bytes', 'A blob must be given as a Buffer or Uint8Array');
  }
  if (bytes.byteLength > maxBytes) {
    throw new ValidationError(
      'blob_too_large',
      `The blob is ${bytes.byteLength} bytes; the limit is ${maxBytes} bytes`,
    );
  }
  const buffer = Buffer.isBuffer(bytes)
    ? bytes
    : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const sha256 = createHash('sha256').update(buffer).digest('hex');
  return { id: `sha256-${sha256}`, sizeBytes: buffer.byteLength, sha256, buffer };
}

/** Validates a configured size limit once, at construction. */
export function checkMaxBytes(maxBytes: number | undefined): number {
  const value = maxBytes ?? DEFAULT_MAX_BLOB_BYTES;
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`maxBytes must be a non-negative integer, got ${value}`);
  }
  return value;
}
