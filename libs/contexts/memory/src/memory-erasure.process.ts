// Process manager: destroys the data keys of what the log says left memory (a retired or deleted memory, a cleared
// bucket; answered proposals are the proposal process's). The request destroys them at once; this makes it certain,
// since it consumes the checkpointed log. Destroying a key that is gone is a no-op, so a replay changes nothing.
import { Inject, Injectable } from '@nestjs/common';
import { defineProcess, erasureHandlers, type EventHandlers } from '#eventsourcing';
import { KEY_STORE, type KeyStore } from '#key-store';
import type { MemoryEvent } from './memory.events.js';
import { bucketKeyGroup } from './memory.repository.js';

type Read = Extract<MemoryEvent, { type: 'MemoryRetired' | 'MemoryDeleted' | 'MemoryBucketCleared' }>;

@Injectable()
export class MemoryErasureProcess extends defineProcess<Read>({
  name: 'memory-erasure-process',
  version: 1,
}) {
  constructor(@Inject(KEY_STORE) private readonly keys: KeyStore) {
    super();
  }

  readonly on: EventHandlers<Read> = erasureHandlers<Read>(
    {
      MemoryRetired: ({ data }) => ({ keys: [data.memoryId] }),
      MemoryDeleted: ({ data }) => ({ keys: [data.memoryId] }),
      MemoryBucketCleared: ({ data }) => ({ groups: [bucketKeyGroup(data.agentId, data.owner)] }),
    },
    () => this.keys,
  );
}
