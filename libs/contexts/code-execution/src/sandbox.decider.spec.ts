import { deciderSpec } from '#testing/decider-spec';
import { type SandboxEvent } from './sandbox.events.js';
import { sandboxDecider } from './sandbox.decider.js';

const given = deciderSpec(sandboxDecider);
const blob = (c: string) => `sha256-${c.repeat(64)}`;

const created: SandboxEvent = {
  type: 'SandboxCreated',
  data: { conversationId: 'cnv_1', agentId: 'agt_1', sandboxId: 'sbx-cnv_1', skills: [] },
};
const ran = (
  callId: string,
  messageId: string,
  answerId: string | null,
  blobIds: string[],
): SandboxEvent => ({
  type: 'CodeRan',
  data: {
    conversationId: 'cnv_1',
    callId,
    messageId,
    ...(answerId ? { answerId } : {}),
    language: 'shell',
    code: 'sealed',
    exitCode: 0,
    durationMs: 1,
    timedOut: false,
    truncated: false,
    killedBy: null,
    output: 'sealed',
    files: [],
    sealedFiles: 'sealed',
    blobIds,
  },
});
/** A run of the first shape: its files in the clear, no answer id. */
const ranFirstShape: SandboxEvent = {
  type: 'CodeRan',
  data: {
    ...(ran('run0', 'msg_u0', null, []).data as Extract<SandboxEvent, { type: 'CodeRan' }>['data']),
    sealedFiles: undefined,
    blobIds: undefined,
    files: [{ path: 'old.txt', blobId: blob('0'), sizeBytes: 1 }],
  },
};
const erase = (messageId: string | null) =>
  ({ type: 'EraseCodeRuns', data: { conversationId: 'cnv_1', messageId } }) as const;

describe('sandbox decider: erasing runs', () => {
  const history = [
    created,
    ran('run1', 'msg_u1', 'msg_a1', [blob('1')]),
    ran('run2', 'msg_u2', 'msg_a2', [blob('2')]),
  ];

  it("erases the runs of a deleted user message's turn, or of its answer, with their blobs", () => {
    const erased = (messageId: string): SandboxEvent => ({
      type: 'CodeRunsErased',
      data: {
        conversationId: 'cnv_1',
        callIds: ['run2'],
        blobIds: [blob('2')],
        messageId,
        reason: 'message_deleted',
      },
    });
    given(...history)
      .when(erase('msg_u2'))
      .then([erased('msg_u2')]);
    given(...history)
      .when(erase('msg_a2'))
      .then([erased('msg_a2')]);
  });

  it('erases each run once, and nothing for a message without runs', () => {
    const first = sandboxDecider.decide(
      erase('msg_a2'),
      history.reduce(sandboxDecider.evolve, sandboxDecider.initialState()),
    );
    given(...history, ...first)
      .when(erase('msg_u2'))
      .then([]);
    given(...history)
      .when(erase('msg_other'))
      .then([]);
  });

  it('erases every run left, first-shape ones included (their plain blobs left to the gc), with the conversation', () => {
    given(
      ranFirstShape,
      ...history,
      ...sandboxDecider.decide(
        erase('msg_u1'),
        [ranFirstShape, ...history].reduce(sandboxDecider.evolve, sandboxDecider.initialState()),
      ),
    )
      .when(erase(null))
      .then([
        {
          type: 'CodeRunsErased',
          data: {
            conversationId: 'cnv_1',
            callIds: ['run0', 'run2'],
            // The first shape's plain blob is left to the blob gc (its address may be shared with other data).
            blobIds: [blob('2')],
            messageId: null,
            reason: 'conversation_deleted',
          },
        },
      ]);
  });
});
