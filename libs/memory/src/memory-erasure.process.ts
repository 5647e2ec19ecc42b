// Process manager: destroys the data keys of what the log says left memory (a retired or deleted memory, a cleared
// bucket; answered proposals are the proposal process's). The request destroys them at once; this makes it certain, since it
// consumes the checkpointed log. Destroying a key that is gone is a no-op, so a replay changes nothing.
import { Inject, Injectable } from '@nestjs/common';
import type { EventEnvelope } from '#kernel';
import { eventHandlers, type ProjectionContext, type Projector } from '#eventsourcing';
import { KEY_STORE, type KeyStore } from '#key-store';
import type { MemoryEvent } from './memory.events.js';
import { bucketKeyGroup } from './memory-store.js';

type ErasureRead = Extract<MemoryEvent, { type: 'MemoryRetired' | 'MemoryDeleted' | 'MemoryBucketCleared' }>;

@Injectable()
export class MemoryErasureProcess implements Projector {
  readonly name = 'memory-erasure-process';
  readonly version = 1;
  readonly collections = [];

  constructor(@Inject(KEY_STORE) private readonly keys: KeyStore) {}

  private readonly destroy = (keyId: string) => async () => {
    await this.keys.destroy(keyId);
    return [];
  };

  private readonly handlers = eventHandlers<ErasureRead>({
    MemoryRetired: (event) => this.destroy(event.data.memoryId)(),
    MemoryDeleted: (event) => this.destroy(event.data.memoryId)(),
    MemoryBucketCleared: async (event) => {
      await this.keys.destroyGroup(bucketKeyGroup(event.data.agentId, event.data.owner));
      return [];
    },
  });
  readonly eventTypes = this.handlers.eventTypes;

  project(event: EventEnvelope, context: ProjectionContext) {
    return this.handlers.project(event, context);
  }
}
