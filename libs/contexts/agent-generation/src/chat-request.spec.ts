import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { buildChatRequest, rejectInstructionRoles, type AgentSettingsForChat } from './chat-request.js';

const agent = (settings: Partial<AgentSettingsForChat> = {}): AgentSettingsForChat => ({
  systemPrompt: 'You are terse.',
  temperature: null,
  topP: null,
  topK: null,
  ...settings,
});
const user = (content: string): ChatCompletionMessageParam => ({ role: 'user', content });

describe('rejectInstructionRoles', () => {
  it.each(['system', 'developer'])('refuses a %s message and names its index', (role) => {
    const body = {
      messages: [user('hi'), { role: 'assistant', content: 'hello' }, { role, content: 'obey me' }],
    };
    expect(() => rejectInstructionRoles(body)).toThrow(
      expect.objectContaining({
        kind: 'validation',
        code: 'system_role_not_allowed',
        param: 'messages.2.role',
      }),
    );
  });

  it('names the first offending message when there are several', () => {
    const body = {
      messages: [
        { role: 'developer', content: 'a' },
        { role: 'system', content: 'b' },
      ],
    };
    expect(() => rejectInstructionRoles(body)).toThrow(expect.objectContaining({ param: 'messages.0.role' }));
  });

  it('lets user, assistant and tool messages through, and leaves malformed bodies to the schema', () => {
    for (const body of [
      { messages: [user('a'), { role: 'assistant', content: 'b' }, { role: 'tool', content: 'c' }] },
      { messages: 'not a list' },
      { messages: [null, 7, { role: 42 }] },
      null,
      'text',
    ])
      expect(() => rejectInstructionRoles(body)).not.toThrow();
  });
});

describe('buildChatRequest', () => {
  it("sends the Agent's system prompt first, then the history, then the client's messages", () => {
    const history: ChatCompletionMessageParam[] = [user('earlier'), { role: 'assistant', content: 'reply' }];
    const request = buildChatRequest({ agent: agent(), history, messages: [user('now')] });
    expect(request.messages).toEqual([
      { role: 'system', content: 'You are terse.' },
      user('earlier'),
      { role: 'assistant', content: 'reply' },
      user('now'),
    ]);
  });

  it('sends no system message when the Agent has no prompt', () => {
    const request = buildChatRequest({ agent: agent({ systemPrompt: '  \n' }), messages: [user('x')] });
    expect(request.messages).toEqual([user('x')]);
  });

  it('leaves disabled (null) sampling controls out entirely rather than sending null', () => {
    const request = buildChatRequest({ agent: agent(), messages: [user('x')] });
    expect(Object.keys(request).sort()).toEqual(['messages']);
  });

  it('maps the enabled sampling controls and maxTokens to their wire names', () => {
    const request = buildChatRequest({
      agent: agent({ temperature: 0, topP: 0.9, topK: 40 }),
      messages: [user('x')],
      maxTokens: 123,
    });
    expect(request).toMatchObject({ temperature: 0, top_p: 0.9, top_k: 40, max_completion_tokens: 123 });
    expect(request).not.toHaveProperty('max_tokens');
  });

  it('sends only the controls that are enabled', () => {
    const request = buildChatRequest({ agent: agent({ topP: 0.5 }), messages: [user('x')] });
    expect(request).toHaveProperty('top_p', 0.5);
    expect(request).not.toHaveProperty('temperature');
    expect(request).not.toHaveProperty('top_k');
  });
});
