import type { EventEnvelope } from '#kernel';
import { sandboxBlobReferences } from './sandbox-blob-references.js';

const blob = (c: string) => `sha256-${c.repeat(64)}`;
let position = 0;
const envelope = (type: string, data: Record<string, unknown>) =>
  ({ type, data, position: ++position }) as unknown as EventEnvelope;
const ran = (
  conversationId: string,
  callId: string,
  messageId: string,
  shape: 'first' | 'sealed',
  id: string,
) =>
  envelope('CodeRan', {
    conversationId,
    callId,
    messageId,
    ...(shape === 'sealed'
      ? { answerId: `${messageId}-answer`, files: [], sealedFiles: 'sealed', blobIds: [id] }
      : { files: [{ path: 'f.txt', blobId: id, sizeBytes: 1 }] }),
  });

const referenced = (...events: EventEnvelope[]) => {
  const fold = sandboxBlobReferences.start();
  for (const event of events) fold.apply(event);
  return new Set(fold.referenced());
};

describe('sandbox files as the blob gc sees them', () => {
  it('keeps the files of live runs, first shape and sealed, also after their sandbox is destroyed', () => {
    expect(
      referenced(
        ran('cnv_1', 'run1', 'msg_1', 'first', blob('1')),
        ran('cnv_1', 'run2', 'msg_2', 'sealed', blob('2')),
        envelope('SandboxDestroyed', { conversationId: 'cnv_1', reason: 'idle_timeout' }),
      ),
    ).toEqual(new Set([blob('1'), blob('2')]));
  });

  it('lets go of erased runs, and of runs whose message or conversation was deleted before erasure existed', () => {
    expect(
      referenced(
        ran('cnv_1', 'run1', 'msg_1', 'first', blob('1')),
        ran('cnv_1', 'run2', 'msg_2', 'sealed', blob('2')),
        ran('cnv_1', 'run3', 'msg_3', 'sealed', blob('3')),
        ran('cnv_2', 'run4', 'msg_4', 'first', blob('4')),
        ran('cnv_3', 'run5', 'msg_5', 'first', blob('5')),
        envelope('MessageDeleted', { conversationId: 'cnv_1', messageId: 'msg_1' }),
        envelope('MessageDeleted', { conversationId: 'cnv_1', messageId: 'msg_2-answer' }),
        envelope('CodeRunsErased', { conversationId: 'cnv_1', callIds: ['run3'], blobIds: [blob('3')] }),
        envelope('ConversationDeleted', { conversationId: 'cnv_2', reason: 'requested' }),
      ),
    ).toEqual(new Set([blob('5')]));
  });
});
