import { projectionHarness } from '#testing/projection-harness';
import { CONVERSATION_SANDBOXES, type SandboxView } from '#code-execution';
import { codeExecutionProjector } from './code-execution.projector.js';

const created = {
  type: 'SandboxCreated',
  data: { conversationId: 'cnv_1', agentId: 'agt_1', sandboxId: 'sbx-cnv_1', skills: [] },
};
const ran = (callId: string, messageId: string, answerId?: string) => ({
  type: 'CodeRan',
  data: {
    conversationId: 'cnv_1',
    callId,
    messageId,
    ...(answerId ? { answerId } : {}),
    language: 'shell',
    code: `sealed-code-${callId}`,
    exitCode: 0,
    durationMs: 5,
    timedOut: false,
    truncated: false,
    killedBy: null,
    output: `sealed-output-${callId}`,
    files: [],
    sealedFiles: `sealed-files-${callId}`,
    blobIds: [`sha256-${callId.padEnd(64, '0')}`],
  },
});
const erased = (callIds: string[]) => ({
  type: 'CodeRunsErased',
  data: {
    conversationId: 'cnv_1',
    callIds,
    blobIds: [],
    messageId: 'msg_u2',
    reason: 'message_deleted',
  },
});

describe('code-execution projection', () => {
  it('drops the erased runs and keeps the others; the same erasure twice changes nothing', async () => {
    const h = await projectionHarness(codeExecutionProjector);
    const erasure = h.envelope(erased(['run2']));
    await h.apply(
      h.envelope(created),
      h.envelope(ran('run1', 'msg_u1', 'msg_a1')),
      h.envelope(ran('run2', 'msg_u2', 'msg_a2')),
      erasure,
    );
    const view = await h.get<SandboxView>(CONVERSATION_SANDBOXES, 'cnv_1');
    expect(view!.calls.map((call) => call.callId)).toEqual(['run1']);
    expect(view!.calls[0]).toMatchObject({ sealedFiles: 'sealed-files-run1', answerId: 'msg_a1' });
    expect(JSON.stringify(view)).not.toContain('run2');
    await h.apply(erasure);
    expect((await h.get(CONVERSATION_SANDBOXES, 'cnv_1'))!).toEqual(view);
  });

  it('reads a CodeRan of the first shape (files in the clear, no answer id)', async () => {
    const h = await projectionHarness(codeExecutionProjector);
    const { sealedFiles: _s, blobIds: _b, ...first } = ran('run1', 'msg_u1').data;
    const files = [{ path: 'a.txt', blobId: `sha256-${'a'.repeat(64)}`, sizeBytes: 3 }];
    await h.apply(h.envelope(created), h.envelope({ type: 'CodeRan', data: { ...first, files } }));
    const view = await h.get<SandboxView>(CONVERSATION_SANDBOXES, 'cnv_1');
    expect(view!.calls[0]!.files).toEqual(files);
  });
});
