// The offline chat model's core with responders of this spec's own (no context's format): what the core does with
// what a responder registers — its tools, its reply, its whole answer — and in which order.
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import type { ChatRequest } from '../provider.port.js';
import { OFFLINE_REPLY_PREFIX, offlineChat } from './offline-chat.js';
import {
  lastTurnResult,
  lastUserMessage,
  offlineResponders,
  offlineSetupModule,
  textOf,
  turnCalls,
  useOfflineResponders,
  type OfflineResponder,
} from './offline-responder.js';

type Messages = readonly ChatCompletionMessageParam[];

const tool = (name: string): ChatCompletionTool => ({
  type: 'function',
  function: { name, parameters: { type: 'object', properties: { q: { type: 'string' } } } },
});
const said = (content: string, extra: Partial<ChatRequest> = {}): ChatRequest => ({
  messages: [{ role: 'user', content }],
  ...extra,
});
const userSays = (request: { messages: ChatRequest['messages'] | Messages }, word: string): boolean =>
  textOf(lastUserMessage(request.messages)?.content).includes(word);

/** `ping` is called when the user says "ping", once a turn; its result "pong" is answered "ponged". */
const ping: OfflineResponder = {
  name: 'ping',
  tools: [
    {
      name: 'ping',
      asked: (messages) => userSays({ messages }, 'ping') && !turnCalls(messages).includes('ping'),
      args: () => ({ at: 'ping' }),
    },
  ],
  reply: (messages, before) =>
    lastTurnResult(messages, (text) => (text === 'pong' ? text : undefined))
      ? { text: 'ponged', found: true }
      : before(),
};
/** `run` claims a turn whose message says "code": no other built-in tool is asked for then. */
const run: OfflineResponder = {
  name: 'run',
  tools: [
    {
      name: 'run',
      claims: (messages) => userSays({ messages }, 'code'),
      asked: (messages) => userSays({ messages }, 'run') && !turnCalls(messages).includes('run'),
    },
    { name: 'after', followUp: (messages) => userSays({ messages }, 'then') },
  ],
};

afterEach(() => useOfflineResponders([]));

describe('Offline responders', () => {
  it('are kept in the order given, with the module that set them; a name given twice is refused', () => {
    useOfflineResponders([ping, run], 'file:///setup.js');
    expect(offlineResponders().map((responder) => responder.name)).toEqual(['ping', 'run']);
    expect(offlineSetupModule()).toBe('file:///setup.js');
    expect(() => useOfflineResponders([ping, ping])).toThrow("offline responder 'ping' is registered twice");
  });

  it('without responders, the core knows no built-in tool: any offered tool is called', () => {
    const result = offlineChat(said('hello', { tools: [tool('ping')] }));
    expect(result.message.tool_calls?.[0]).toMatchObject({ function: { name: 'ping' } });
  });

  it("calls a responder's tool only when asked for, with the responder's arguments", () => {
    useOfflineResponders([ping]);
    expect(offlineChat(said('hello', { tools: [tool('ping')] })).message).toMatchObject({
      content: expect.stringContaining(OFFLINE_REPLY_PREFIX),
    });
    const call = offlineChat(said('ping me', { tools: [tool('ping')] })).message.tool_calls?.[0];
    expect(call).toMatchObject({ function: { name: 'ping', arguments: '{"at":"ping"}' } });
    // Another tool offered beside it is called when the built-in one is not asked for.
    expect(
      offlineChat(said('hello', { tools: [tool('ping'), tool('other')] })).message.tool_calls?.[0],
    ).toMatchObject({ function: { name: 'other' } });
  });

  it('a tool claiming the turn keeps the other built-in tools from being asked for', () => {
    useOfflineResponders([ping, run]);
    const tools = [tool('ping'), tool('run')];
    expect(offlineChat(said('ping the code', { tools })).message.tool_calls).toBeUndefined();
    expect(
      offlineChat(said('ping the code', { tools: [tool('ping')] })).message.tool_calls?.[0],
    ).toMatchObject({ function: { name: 'ping' } });
    expect(offlineChat(said('run the code, ping', { tools })).message.tool_calls?.[0]).toMatchObject({
      function: { name: 'run' },
    });
  });

  it('when a call is required and none is asked for, calls the first built-in tool offered in registration order', () => {
    useOfflineResponders([ping, run]);
    const request = said('hello', { tools: [tool('run'), tool('ping')], tool_choice: 'required' });
    expect(offlineChat(request).message.tool_calls?.[0]).toMatchObject({ function: { name: 'ping' } });
  });

  it("after a tool result, calls only a responder's follow-up tool", () => {
    useOfflineResponders([ping, run]);
    const afterPing = (content: string): ChatRequest => ({
      messages: [
        { role: 'user', content },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'ping', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'pong' },
      ],
      tools: [tool('ping'), tool('after'), tool('other')],
    });
    expect(offlineChat(afterPing('ping, then more')).message.tool_calls?.[0]).toMatchObject({
      function: { name: 'after' },
    });
    expect(offlineChat(afterPing('ping')).message).toMatchObject({ content: 'ponged' });
  });

  it('builds the reply through the responders in order, each given the reply of those before it', () => {
    const base: OfflineResponder = { name: 'base', reply: () => ({ text: 'base', found: false }) };
    const adds: OfflineResponder = {
      name: 'adds',
      reply: (_messages, before) => {
        const known = before();
        return known?.found
          ? { text: `${known.text} + adds`, found: true }
          : { text: 'adds alone', found: true };
      },
    };
    const found: OfflineResponder = { name: 'found', reply: () => ({ text: 'found', found: true }) };
    useOfflineResponders([base, adds]);
    expect(offlineChat(said('hi')).message.content).toBe('adds alone');
    useOfflineResponders([found, adds]);
    expect(offlineChat(said('hi')).message.content).toBe('found + adds');
    useOfflineResponders([adds, found]);
    expect(offlineChat(said('hi')).message.content).toBe('found');
  });

  it("a responder's whole answer wins over the reply and over response_format", () => {
    const whole: OfflineResponder = {
      name: 'whole',
      answer: (messages) => (userSays({ messages }, 'extract') ? '{"whole":true}' : undefined),
      reply: () => ({ text: 'reply', found: true }),
    };
    useOfflineResponders([whole]);
    const format = { response_format: { type: 'json_object' as const } };
    expect(offlineChat(said('extract this', format)).message.content).toBe('{"whole":true}');
    expect(offlineChat(said('hello', format)).message.content).toBe('{"reply":"reply"}');
  });
});
