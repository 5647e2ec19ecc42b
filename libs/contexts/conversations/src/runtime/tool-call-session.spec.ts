// A call's session with its turn: progress goes out at most four times a second (the last step always), log lines
// from `info` up and at most 20, nothing after the call ended; a question is declined where nobody follows the turn
// and waits for the owner's answer (checked against the schema) where someone does; sampling is refused when it is
// switched off or the call has used its count.
import type { ModelGateway } from '#model-gateway';
import { toolCallSession, type ToolCallSessionDeps } from './tool-call-session.js';
import { ToolElicitations } from './tool-elicitations.js';
import type { NoticeEvent, TurnEvent } from './turn-events.js';

const owner = { agentId: 'agt_1', conversationId: 'cnv_1', userId: 'usr_1' };

function session(overrides: Partial<ToolCallSessionDeps> = {}) {
  const told: (TurnEvent | NoticeEvent)[] = [];
  const elicitations = new ToolElicitations();
  const deps: ToolCallSessionDeps = {
    emit: async (event) => void told.push(event),
    owner,
    elicitations,
    timeoutMs: 60_000,
    present: true,
    sampling: {
      // Never reached by these cases: each is refused before a model is called.
      gateway: {} as ModelGateway,
      scope: {} as ToolCallSessionDeps['sampling']['scope'],
      model: { key: 'offline-chat' } as ToolCallSessionDeps['sampling']['model'],
      enabled: true,
      maxTokens: 100,
      maxRequestsPerCall: 0,
    },
    signal: new AbortController().signal,
    ...overrides,
  };
  return { told, elicitations, deps, call: toolCallSession(deps, { callId: 'tcl_1', id: 'call_0' }) };
}

describe('a tool call session', () => {
  it('streams the first progress, drops what follows within 250 ms, and always the last step', () => {
    const { told, call } = session();
    call.progress({ progress: 1, total: 3, message: 'one' });
    call.progress({ progress: 2, total: 3 });
    call.progress({ progress: 3, total: 3 });
    expect(told).toEqual([
      {
        event: 'tool_progress',
        data: { callId: 'tcl_1', id: 'call_0', progress: 1, total: 3, message: 'one' },
      },
      { event: 'tool_progress', data: { callId: 'tcl_1', id: 'call_0', progress: 3, total: 3 } },
    ]);
  });

  it('streams log lines from info up, 20 at most, and nothing once the call ended', () => {
    const { told, call } = session();
    call.log('debug', 'hidden');
    for (let line = 0; line < 25; line++) call.log('warning', `line ${line}`);
    expect(told).toHaveLength(20);
    expect(told[0]).toEqual({
      event: 'tool_log',
      data: { callId: 'tcl_1', id: 'call_0', level: 'warning', text: 'line 0' },
    });
    const ended = session();
    ended.call.end();
    ended.call.progress({ progress: 1 });
    ended.call.log('info', 'late');
    expect(ended.told).toEqual([]);
  });

  it('declines a question at once where nobody follows the turn', async () => {
    const { told, call } = session({ present: false });
    const answer = await call.elicit(
      { message: 'Your name?', requestedSchema: { type: 'object' }, check: () => [] },
      new AbortController().signal,
    );
    expect(answer).toEqual({ action: 'decline' });
    expect(told).toEqual([]);
  });

  it("asks the person and takes only the owner's answer that fits the schema", async () => {
    const { told, elicitations, call } = session();
    const answered = call.elicit(
      {
        message: 'Your name?',
        requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
        check: (content) => (typeof content.name === 'string' ? [] : ['name is required']),
      },
      new AbortController().signal,
    );
    const asked = told[0] as Extract<TurnEvent, { event: 'tool_elicitation_required' }>;
    expect(asked.data).toMatchObject({ callId: 'tcl_1', id: 'call_0', message: 'Your name?' });
    const { elicitationId } = asked.data;
    expect(elicitations.answer(elicitationId, { ...owner, userId: 'usr_2' }, { action: 'decline' })).toBe(
      'not_found',
    );
    expect(elicitations.answer(elicitationId, owner, { action: 'accept', content: {} })).toEqual({
      problems: ['name is required'],
    });
    expect(elicitations.answer(elicitationId, owner, { action: 'accept', content: { name: 'Ada' } })).toBe(
      'answered',
    );
    await expect(answered).resolves.toEqual({ action: 'accept', content: { name: 'Ada' } });
    expect(elicitations.answer(elicitationId, owner, { action: 'cancel' })).toBe('not_found');
  });

  it('refuses sampling when it is switched off, or past the count of a call', async () => {
    const signal = new AbortController().signal;
    const ask = { messages: [{ role: 'user' as const, text: 'hi' }], maxTokens: 10 };
    const base = session();
    const off = session({ sampling: { ...base.deps.sampling, enabled: false, maxRequestsPerCall: 5 } });
    await expect(off.call.sample(ask, signal)).rejects.toThrow('sampling is switched off on this platform');
    await expect(session().call.sample(ask, signal)).rejects.toThrow(
      'a tool call may make at most 0 sampling requests',
    );
  });
});
