// Time travel for memory: the memories a bucket held at a time, folded from its stream with the decider's evolve
// (a pure fold, no read model), with when each was added, last changed and last used then. Texts stay sealed here:
// the caller opens them (null once their key is destroyed: erased).
import type { EventStore } from '#event-store';
import {
  evolveMemoryBucket,
  initialMemoryBucketState,
  memoryBucketStreamId,
  type MemoryEvent,
  type Sealed,
} from './memory.events.js';

export interface MemoryAsOf {
  readonly memoryId: string;
  readonly agentId: string;
  readonly owner: string;
  readonly version: number;
  /** The version's text as sealed then. */
  readonly text: Sealed;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly lastUsedAt: string;
}

/** The live memories of one bucket at `asOf`, oldest added first. */
export async function memoryBucketAsOf(
  store: EventStore,
  agentId: string,
  owner: string,
  asOf: Date,
): Promise<MemoryAsOf[]> {
  let state = initialMemoryBucketState();
  const times = new Map<string, { createdAt: string; updatedAt: string; lastUsedAt: string }>();
  const touch = (memoryId: string, at: string, changed: boolean) => {
    const known = times.get(memoryId);
    times.set(memoryId, {
      createdAt: known?.createdAt ?? at,
      updatedAt: changed || !known ? at : known.updatedAt,
      lastUsedAt: at,
    });
  };
  for (const envelope of await store.readStream(memoryBucketStreamId(agentId, owner))) {
    const at = envelope.metadata.occurredAt;
    if (Date.parse(at) > asOf.getTime()) break;
    const event = { type: envelope.type, data: envelope.data } as MemoryEvent;
    state = evolveMemoryBucket(state, event);
    if (event.type === 'MemoryAdded' || event.type === 'MemoryRevised' || event.type === 'MemoryRolledBack')
      touch(event.data.memoryId, at, true);
    else if (event.type === 'MemoriesRecalled') for (const id of event.data.memoryIds) touch(id, at, false);
  }
  return state.memories.map((memory) => {
    const time = times.get(memory.memoryId)!;
    return {
      memoryId: memory.memoryId,
      agentId,
      owner,
      version: memory.version,
      text: memory.versions.at(-1)!.text,
      ...time,
    };
  });
}
