// Chooses the blob store from configuration: GridFS beside the MongoDB read store, files under the data directory
// otherwise. The GridFS adapter (and the MongoDB driver) load only when chosen.
import { join } from 'node:path';
import type { PlatformConfig } from '#kernel';
import type { BlobStore } from './blob-store.port.js';
import { FsBlobStore } from './fs/fs-blob-store.js';

export type BlobStoreConfig = Pick<PlatformConfig, 'readStore' | 'mongodbUri' | 'dataDir'>;

export async function openBlobStore(config: BlobStoreConfig): Promise<BlobStore> {
  if (config.readStore === 'mongodb') {
    if (!config.mongodbUri) throw new Error('The GridFS blob store needs MONGODB_URI');
    const { GridFsBlobStore } = await import('./mongodb/gridfs-blob-store.js');
    return GridFsBlobStore.connect({ uri: config.mongodbUri });
  }
  return new FsBlobStore({ dir: join(config.dataDir, 'blobs') });
}
