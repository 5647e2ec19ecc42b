import { PlatformError } from '#kernel';
import type { ChatRequest } from '../provider.port.js';
import { DEFAULT_MAX_TOKENS, messagesBody } from './messages-request.js';

const ephemeral = { type: 'ephemeral' } as const;

describe('messagesBody (a chat request as Anthropic Messages)', () => {
  it('puts system messages in `system`, merges consecutive turns of a role, and defaults max_tokens', () => {
    const body = messagesBody(
      'claude-x',
      {
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'one' },
          { role: 'user', content: 'two' },
          { role: 'developer', content: 'Answer in German.' },
          { role: 'assistant', content: 'eins zwei' },
        ],
      },
      false,
    );
    expect(body).toEqual({
      model: 'claude-x',
      max_tokens: DEFAULT_MAX_TOKENS,
      system: [
        { type: 'text', text: 'Be brief.' },
        { type: 'text', text: 'Answer in German.' },
      ],
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'one' },
            { type: 'text', text: 'two' },
          ],
        },
        { role: 'assistant', content: [{ type: 'text', text: 'eins zwei' }] },
      ],
    });
  });

  it('sends tool calls as tool_use blocks and tool messages as tool_result blocks in one user turn', () => {
    const body = messagesBody(
      'claude-x',
      {
        messages: [
          { role: 'user', content: 'Weather in Berlin and Paris?' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              {
                id: 'toolu_1',
                type: 'function',
                function: { name: 'weather', arguments: '{"city":"Berlin"}' },
              },
              { id: 'toolu_2', type: 'function', function: { name: 'weather', arguments: 'not json' } },
            ],
          },
          { role: 'tool', tool_call_id: 'toolu_1', content: 'sunny' },
          { role: 'tool', tool_call_id: 'toolu_2', content: [{ type: 'text', text: 'rain' }] },
          { role: 'user', content: 'Thanks' },
        ],
      },
      true,
    );
    expect(body.stream).toBe(true);
    expect(body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Weather in Berlin and Paris?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 'toolu_1', name: 'weather', input: { city: 'Berlin' } },
          { type: 'tool_use', id: 'toolu_2', name: 'weather', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'sunny' }] },
          { type: 'tool_result', tool_use_id: 'toolu_2', content: [{ type: 'text', text: 'rain' }] },
          { type: 'text', text: 'Thanks' },
        ],
      },
    ]);
  });

  it('sends images from data URLs as base64 and from http URLs as url sources; refuses other URLs with a 400', () => {
    const request = (url: string): ChatRequest => ({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image_url', image_url: { url } },
          ],
        },
      ],
    });
    expect(
      (messagesBody('m', request('data:image/png;base64,iVBORw0K'), false).messages as unknown[])[0],
    ).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'What is this?' },
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0K' } },
      ],
    });
    expect(messagesBody('m', request('https://example.com/cat.jpg'), false).messages).toEqual([
      expect.objectContaining({
        content: [
          expect.anything(),
          { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
        ],
      }),
    ]);
    expect(() => messagesBody('m', request('file:///etc/passwd'), false)).toThrow(PlatformError);
  });

  it('maps tools, tool_choice, parallel_tool_calls, stop, limits and sampling; leaves out what Anthropic lacks', () => {
    const base: ChatRequest = {
      messages: [{ role: 'user', content: 'hi' }],
      tools: [
        {
          type: 'function',
          function: { name: 'weather', description: 'Weather', parameters: { type: 'object' } },
        },
        { type: 'function', function: { name: 'time' } },
      ],
      max_tokens: 100,
      stop: 'END',
      temperature: 0.5,
      top_p: 0.9,
      top_k: 40,
      seed: 7,
      presence_penalty: 1,
      user: 'user-1',
    };
    expect(messagesBody('m', base, false)).toEqual({
      model: 'm',
      max_tokens: 100,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
      tools: [
        { name: 'weather', description: 'Weather', input_schema: { type: 'object' } },
        { name: 'time', input_schema: { type: 'object', properties: {} } },
      ],
      stop_sequences: ['END'],
      temperature: 0.5,
      top_p: 0.9,
      top_k: 40,
      metadata: { user_id: 'user-1' },
    });
    const choice = (request: Partial<ChatRequest>) =>
      messagesBody('m', { ...base, ...request }, false).tool_choice;
    expect(choice({ tool_choice: 'auto' })).toEqual({ type: 'auto' });
    expect(choice({ tool_choice: 'none' })).toEqual({ type: 'none' });
    expect(choice({ tool_choice: 'required' })).toEqual({ type: 'any' });
    expect(choice({ tool_choice: { type: 'function', function: { name: 'time' } } })).toEqual({
      type: 'tool',
      name: 'time',
    });
    expect(choice({ parallel_tool_calls: false })).toEqual({ type: 'auto', disable_parallel_tool_use: true });
    expect(choice({ tool_choice: 'required', parallel_tool_calls: false })).toEqual({
      type: 'any',
      disable_parallel_tool_use: true,
    });
    expect(messagesBody('m', { ...base, max_completion_tokens: 50 }, false).max_tokens).toBe(50);
  });

  it('keeps cache_control where the client put it: system part, content part, tool, tool call, message', () => {
    const body = messagesBody(
      'm',
      {
        messages: [
          {
            role: 'system',
            content: [
              { type: 'text', text: 'Rules' },
              { type: 'text', text: 'A long document', cache_control: ephemeral },
            ],
          },
          {
            role: 'user',
            content: [
              {
                type: 'image_url',
                image_url: { url: 'data:image/png;base64,AAAA' },
                cache_control: ephemeral,
              },
            ],
          },
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              {
                id: 't1',
                type: 'function',
                function: { name: 'f', arguments: '{}' },
                cache_control: ephemeral,
              },
            ],
          },
          {
            role: 'tool',
            tool_call_id: 't1',
            content: 'done',
            cache_control: { type: 'ephemeral', ttl: '1h' },
          },
          { role: 'user', content: 'next', cache_control: ephemeral },
        ] as ChatRequest['messages'],
        tools: [
          { type: 'function', function: { name: 'f' }, cache_control: ephemeral },
        ] as unknown as ChatRequest['tools'],
      },
      false,
    );
    expect(body.system).toEqual([
      { type: 'text', text: 'Rules' },
      { type: 'text', text: 'A long document', cache_control: ephemeral },
    ]);
    expect(body.messages).toEqual([
      {
        role: 'user',
        content: [
          {
            type: 'image',
            source: { type: 'base64', media_type: 'image/png', data: 'AAAA' },
            cache_control: ephemeral,
          },
        ],
      },
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 't1', name: 'f', input: {}, cache_control: ephemeral }],
      },
      {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: 't1',
            content: [{ type: 'text', text: 'done' }],
            cache_control: { type: 'ephemeral', ttl: '1h' },
          },
          { type: 'text', text: 'next', cache_control: ephemeral },
        ],
      },
    ]);
    expect(body.tools).toEqual([
      { name: 'f', input_schema: { type: 'object', properties: {} }, cache_control: ephemeral },
    ]);
  });
});
