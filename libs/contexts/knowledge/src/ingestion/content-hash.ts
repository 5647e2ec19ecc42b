// The content address of a document's bytes, as the blob store and the `DocumentAdded` event spell it.
import { createHash } from 'node:crypto';

export const CONTENT_HASH_PREFIX = 'sha256-';

export const contentHash = (bytes: Uint8Array): string =>
  `${CONTENT_HASH_PREFIX}${createHash('sha256').update(bytes).digest('hex')}`;
