// What code execution declares to the blob gc (BlobReferences, libs/blob-store/src/blob-gc.ts): a run references the
// files it kept (their sealed bytes, or the first shape's plain ones) until it is erased with its message or its
// conversation; a destroyed sandbox's files stay downloadable, so still referenced.
import { eventTypesOf, type EventEnvelope } from '#kernel';
import type { BlobReferences } from '#blob-store';
import { blobIdsOfRun, type SandboxEvent } from './sandbox.events.js';

/** Every type of the sandbox stream (checked complete by the compiler): none names a blob unaccounted for. */
const SANDBOX_EVENT_TYPES = eventTypesOf<SandboxEvent>({
  SandboxCreated: true,
  SandboxSkillsReplaced: true,
  CodeRan: true,
  CodeRunsErased: true,
  SandboxDestroyed: true,
});

export const sandboxBlobReferences: BlobReferences = {
  kind: 'sandbox files (what code runs kept)',
  eventTypes: SANDBOX_EVENT_TYPES,
  start: () => {
    const runs = new Map<string, readonly string[]>();
    return {
      apply: (envelope) => {
        const event = envelope as EventEnvelope & SandboxEvent;
        if (event.type === 'CodeRan') runs.set(event.data.callId, blobIdsOfRun(event.data));
        else if (event.type === 'CodeRunsErased')
          for (const callId of event.data.callIds) runs.delete(callId);
      },
      referenced: () => [...runs.values()].flat(),
    };
  },
};
