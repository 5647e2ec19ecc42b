import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { offlineChat } from './offline-chat.js';
import { useOfflineResponders } from './offline-responder.js';
import { toolCommand } from './offline-tool-command.js';

const said = (content: string): ChatCompletionMessageParam[] => [
  { role: 'system', content: 'You are terse.' },
  { role: 'user', content },
];

describe("the offline model's `call <tool> <JSON>` form", () => {
  it('names the tool and its arguments', () => {
    expect(toolCommand(said('call echo {"message":"hi"}'))).toEqual({
      name: 'echo',
      args: { message: 'hi' },
    });
    expect(toolCommand(said('  call app_1__get-sum   {"a": 1, "b": 2}\n'))).toEqual({
      name: 'app_1__get-sum',
      args: { a: 1, b: 2 },
    });
    expect(toolCommand(said('call list_things'))).toEqual({ name: 'list_things', args: {} });
  });

  it('is nothing else: prose, arguments that are not a JSON object', () => {
    for (const content of ['please call echo', 'call echo hi', 'call echo [1,2]', 'call', 'recall echo {}'])
      expect(toolCommand(said(content))).toBeUndefined();
  });
});

describe('the offline model told which tool to call', () => {
  const tool = (name: string) => ({
    type: 'function' as const,
    function: { name, parameters: { type: 'object', properties: { x: { type: 'number' } } } },
  });
  const call = (content: string, tools = [tool('first'), tool('app_1__second')]) => {
    const result = offlineChat({ messages: said(content), tools });
    const called = result.message.tool_calls?.[0];
    return called?.type === 'function'
      ? { name: called.function.name, args: called.function.arguments }
      : undefined;
  };

  beforeAll(() => useOfflineResponders([{ name: 'apps', ownsTool: (name) => name.startsWith('app_') }]));
  afterAll(() => useOfflineResponders([]));

  it('calls the named tool with the given arguments', () => {
    expect(call('call app_1__second {"x":7}')).toEqual({ name: 'app_1__second', args: '{"x":7}' });
    expect(call('call first {"x":1}')).toEqual({ name: 'first', args: '{"x":1}' });
  });

  it('never picks a tool a responder owns of its own accord, and ignores a call of a tool not offered', () => {
    expect(call('hello', [tool('app_1__second')])).toBeUndefined();
    expect(call('call missing {"x":1}', [tool('app_1__second')])).toBeUndefined();
    expect(call('hello')?.name).toBe('first');
  });

  it('answers with the result after the call, calling nothing again', () => {
    const result = offlineChat({
      messages: [
        ...said('call first {"x":1}'),
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'first', arguments: '{"x":1}' } }],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'one' },
      ],
      tools: [tool('first')],
    });
    expect(result.message.tool_calls ?? []).toEqual([]);
    expect(result.message.content).toContain('The tool returned: one');
  });
});
