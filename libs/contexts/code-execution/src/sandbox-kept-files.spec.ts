// The sandbox state counts the files a conversation's runs kept (the caps per conversation read it), across sandbox
// rebuilds and destruction: the files stay in the blob store, so the count does not start again.
import { type SandboxEvent } from './sandbox.events.js';
import { sandboxDecider } from './sandbox.decider.js';

const ran = (callId: string, sizes: number[]): SandboxEvent => ({
  type: 'CodeRan',
  data: {
    conversationId: 'c1',
    callId,
    messageId: 'm1',
    language: 'shell',
    code: 'sealed',
    exitCode: 0,
    durationMs: 1,
    timedOut: false,
    truncated: false,
    killedBy: null,
    output: 'sealed',
    files: sizes.map((sizeBytes, i) => ({
      path: `${callId}-${i}.txt`,
      blobId: `b-${callId}-${i}`,
      sizeBytes,
    })),
  },
});
const created: SandboxEvent = {
  type: 'SandboxCreated',
  data: { conversationId: 'c1', agentId: 'a1', sandboxId: 'sbx-c1', skills: [] },
};
const destroyed: SandboxEvent = {
  type: 'SandboxDestroyed',
  data: { conversationId: 'c1', reason: 'idle_timeout' },
};

describe('sandbox state: files kept per conversation', () => {
  it('adds the kept files and bytes, and keeps counting after the sandbox is destroyed and made again', () => {
    const state = [created, ran('r1', [10, 20]), destroyed, created, ran('r2', [5])].reduce(
      sandboxDecider.evolve,
      sandboxDecider.initialState(),
    );
    expect(state).toMatchObject({ status: 'active', keptFiles: 3, keptBytes: 35, callIds: ['r1', 'r2'] });
  });
});
