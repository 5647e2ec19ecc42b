// Chooses the rate limit store from configuration. The MongoDB adapter (and mongoose) load only when chosen.
import type { PlatformConfig } from '#kernel';
import { InProcessRateLimitStore } from './in-process/in-process-rate-limit-store.js';
import type { RateLimitStore } from './rate-limit-store.port.js';

/** Shared by the api processes with the production engines (beside the MongoDB read store), else in process. */
export async function openRateLimitStore(
  config: Pick<PlatformConfig, 'readStore' | 'mongodbUri'>,
): Promise<RateLimitStore> {
  if (config.readStore !== 'mongodb') return new InProcessRateLimitStore();
  if (!config.mongodbUri) throw new Error('The MongoDB rate limit store needs MONGODB_URI');
  const { MongoRateLimitStore } = await import('./mongodb/mongo-rate-limit-store.js');
  return MongoRateLimitStore.connect({ uri: config.mongodbUri });
}
