// What code execution declares to the blob gc (BlobReferences, libs/adapters/blob-store/src/blob-gc.ts): a run references the
// files it kept (their sealed bytes, or the first shape's plain ones) until it is erased with its message or its
// conversation; a destroyed sandbox's files stay downloadable, so still referenced. The deletions themselves count
// too: a run recorded before erasure existed (no CodeRunsErased followed its message's deletion) stops holding its
// files once its message or conversation is deleted, so gc clears what those deletions left behind.
import { eventTypesOf, type EventEnvelope } from '#kernel';
import type { BlobReferences } from '#blob-store';
import type { ConversationEvent } from '#conversations';
import { blobIdsOfRun, type SandboxEvent } from './sandbox.events.js';

type Deletion = Extract<ConversationEvent, { type: 'MessageDeleted' | 'ConversationDeleted' }>;

interface RunFiles {
  readonly conversationId: string;
  readonly messageIds: readonly string[];
  readonly blobIds: readonly string[];
}

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
  eventTypes: [...SANDBOX_EVENT_TYPES, 'MessageDeleted', 'ConversationDeleted'],
  start: () => {
    const runs = new Map<string, RunFiles>();
    const drop = (matches: (run: RunFiles) => boolean) => {
      for (const [callId, run] of runs) if (matches(run)) runs.delete(callId);
    };
    return {
      apply: (envelope) => {
        const event = envelope as EventEnvelope & (SandboxEvent | Deletion);
        switch (event.type) {
          case 'CodeRan':
            runs.set(event.data.callId, {
              conversationId: event.data.conversationId,
              messageIds: [event.data.messageId, ...(event.data.answerId ? [event.data.answerId] : [])],
              blobIds: blobIdsOfRun(event.data),
            });
            break;
          case 'CodeRunsErased':
            for (const callId of event.data.callIds) runs.delete(callId);
            break;
          case 'MessageDeleted': {
            const { conversationId, messageId } = event.data;
            drop((run) => run.conversationId === conversationId && run.messageIds.includes(messageId));
            break;
          }
          case 'ConversationDeleted':
            drop((run) => run.conversationId === event.data.conversationId);
            break;
          default:
            break;
        }
      },
      referenced: () => [...runs.values()].flatMap((run) => run.blobIds),
    };
  },
};
