// The Responses and Messages formats as pure translations: requests into the gateway's chat request, results back.
import { ValidationError } from '#kernel';
import type { ChatResult } from '#model-providers';
import { parseOrThrow } from '#http';
import { MessagesBody, messagesToChatRequest, toAnthropicMessage } from './messages.format.js';
import {
  refuseUnsupportedResponsesFields,
  ResponseShell,
  ResponsesBody,
  responsesToChatRequest,
} from './responses.format.js';

const responses = (body: Record<string, unknown>) =>
  responsesToChatRequest(parseOrThrow(ResponsesBody, { model: 'm', ...body }));
const messages = (body: Record<string, unknown>) =>
  messagesToChatRequest(parseOrThrow(MessagesBody, { model: 'm', max_tokens: 10, ...body }));
const paramOf = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    if (error instanceof ValidationError) return error.param;
    throw error;
  }
  return undefined;
};

const result: ChatResult = {
  message: {
    role: 'assistant',
    content: 'Sure.',
    refusal: null,
    tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }],
  },
  finishReason: 'tool_calls',
  usage: { inputTokens: 10, cachedInputTokens: 4, outputTokens: 3 },
};

describe('Responses format', () => {
  it('translates instructions, items, parallel function calls and their outputs into chat messages', () => {
    expect(
      responses({
        instructions: 'Be brief.',
        input: [
          { role: 'developer', content: 'Rules.' },
          { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Hi' }] },
          { type: 'reasoning', summary: [] },
          { role: 'assistant', content: [{ type: 'output_text', text: 'Calling.' }] },
          { type: 'function_call', call_id: 'a', name: 'f', arguments: '{}' },
          { type: 'function_call', call_id: 'b', name: 'g', arguments: '{}' },
          { type: 'function_call_output', call_id: 'a', output: 'one' },
          { type: 'function_call_output', call_id: 'b', output: [{ type: 'input_text', text: 'two' }] },
        ],
        tools: [{ type: 'function', name: 'f', parameters: { type: 'object' } }],
        tool_choice: { type: 'function', name: 'f' },
        max_output_tokens: 5,
        temperature: 0.2,
      }),
    ).toEqual({
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'developer', content: 'Rules.' },
        { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
        {
          role: 'assistant',
          content: 'Calling.',
          tool_calls: [
            { id: 'a', type: 'function', function: { name: 'f', arguments: '{}' } },
            { id: 'b', type: 'function', function: { name: 'g', arguments: '{}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'a', content: 'one' },
        { role: 'tool', tool_call_id: 'b', content: 'two' },
      ],
      tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }],
      tool_choice: { type: 'function', function: { name: 'f' } },
      max_completion_tokens: 5,
      temperature: 0.2,
    });
  });

  it('refuses what it does not keep or offer, naming the field', () => {
    // Stored responses are kept (the route resolves what they continue): store and previous_response_id pass.
    expect(paramOf(() => refuseUnsupportedResponsesFields({ store: true }))).toBeUndefined();
    expect(paramOf(() => refuseUnsupportedResponsesFields({ previous_response_id: 'r' }))).toBeUndefined();
    expect(paramOf(() => refuseUnsupportedResponsesFields({ conversation: 'c' }))).toBe('conversation');
    // An item reference left unresolved names nothing stored.
    expect(paramOf(() => responses({ input: [{ type: 'item_reference', id: 'x' }] }))).toBe('input.0');
    expect(paramOf(() => responses({ input: 'x', tools: [{ type: 'web_search' }] }))).toBe('tools.0.type');
    expect(
      paramOf(() =>
        responses({ input: [{ role: 'user', content: [{ type: 'input_file', file_id: 'f' }] }] }),
      ),
    ).toBe('input.0.content.0.type');
  });

  it('answers a response object with message and function_call items, usage and the namespace of a call', () => {
    const shell = new ResponseShell(
      'm',
      parseOrThrow(ResponsesBody, {
        model: 'm',
        input: 'x',
        tools: [{ type: 'namespace', name: 'ns', tools: [{ type: 'function', name: 'f' }] }],
      }),
    );
    expect(shell.fromResult(result)).toMatchObject({
      object: 'response',
      status: 'completed',
      output_text: 'Sure.',
      store: true,
      output: [
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Sure.' }] },
        { type: 'function_call', call_id: 'call_1', name: 'f', namespace: 'ns', arguments: '{"a":1}' },
      ],
      usage: {
        input_tokens: 10,
        input_tokens_details: { cached_tokens: 4 },
        output_tokens: 3,
        total_tokens: 13,
      },
    });
    expect(shell.fromResult({ ...result, finishReason: 'length' })).toMatchObject({
      status: 'incomplete',
      incomplete_details: { reason: 'max_output_tokens' },
    });
  });
});

describe('Messages format', () => {
  it('translates system blocks, tool_use and tool_result blocks, tools and tool_choice', () => {
    expect(
      messages({
        system: [{ type: 'text', text: 'Be brief.' }],
        messages: [
          { role: 'user', content: 'Weather?' },
          {
            role: 'assistant',
            content: [
              { type: 'thinking', thinking: '…' },
              { type: 'text', text: 'Checking.' },
              { type: 'tool_use', id: 't1', name: 'w', input: { city: 'Paris' } },
            ],
          },
          {
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: 'sunny' }] },
              { type: 'text', text: 'Thanks' },
            ],
          },
        ],
        tools: [{ name: 'w', input_schema: { type: 'object' } }],
        tool_choice: { type: 'any', disable_parallel_tool_use: true },
        stop_sequences: ['END'],
        top_k: 5,
      }),
    ).toEqual({
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Weather?' },
        {
          role: 'assistant',
          content: 'Checking.',
          tool_calls: [
            { id: 't1', type: 'function', function: { name: 'w', arguments: '{"city":"Paris"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 't1', content: 'sunny' },
        { role: 'user', content: 'Thanks' },
      ],
      max_completion_tokens: 10,
      tools: [{ type: 'function', function: { name: 'w', parameters: { type: 'object' } } }],
      tool_choice: 'required',
      parallel_tool_calls: false,
      stop: ['END'],
      top_k: 5,
    });
  });

  it('requires max_tokens and refuses server tools and unknown blocks, naming the field', () => {
    expect(
      paramOf(() => parseOrThrow(MessagesBody, { model: 'm', messages: [{ role: 'user', content: 'x' }] })),
    ).toBe('max_tokens');
    expect(
      paramOf(() =>
        messages({
          messages: [{ role: 'user', content: 'x' }],
          tools: [{ type: 'web_search_20250305', name: 'web_search' }],
        }),
      ),
    ).toBe('tools.0.type');
    expect(
      paramOf(() => messages({ messages: [{ role: 'user', content: [{ type: 'document', source: {} }] }] })),
    ).toBe('messages.0.content.0.type');
  });

  it('answers a message with text and tool_use blocks, the stop reason and usage without cached reads', () => {
    expect(toAnthropicMessage('m', result)).toMatchObject({
      type: 'message',
      role: 'assistant',
      model: 'm',
      content: [
        { type: 'text', text: 'Sure.' },
        { type: 'tool_use', id: 'call_1', name: 'f', input: { a: 1 } },
      ],
      stop_reason: 'tool_use',
      usage: { input_tokens: 6, cache_read_input_tokens: 4, output_tokens: 3 },
    });
  });

  it('keeps cache_control on the system block, content blocks, tool results, tool calls and tools', () => {
    const mark = { type: 'ephemeral' };
    const request = messages({
      system: [
        { type: 'text', text: 'Rules.' },
        { type: 'text', text: 'A long document.', cache_control: mark },
      ],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Weather?', cache_control: mark }] },
        {
          role: 'assistant',
          content: [{ type: 'tool_use', id: 't1', name: 'w', input: {}, cache_control: mark }],
        },
        {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 't1', content: 'sunny', cache_control: mark }],
        },
      ],
      tools: [{ name: 'w', input_schema: { type: 'object' }, cache_control: mark }],
    });
    expect(request.messages).toEqual([
      {
        role: 'system',
        content: [
          { type: 'text', text: 'Rules.' },
          { type: 'text', text: 'A long document.', cache_control: mark },
        ],
      },
      { role: 'user', content: [{ type: 'text', text: 'Weather?', cache_control: mark }] },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 't1', type: 'function', function: { name: 'w', arguments: '{}' }, cache_control: mark },
        ],
      },
      { role: 'tool', tool_call_id: 't1', content: 'sunny', cache_control: mark },
    ]);
    expect(request.tools).toEqual([
      { type: 'function', function: { name: 'w', parameters: { type: 'object' } }, cache_control: mark },
    ]);
  });

  it('reports cache reads and writes apart from input_tokens', () => {
    const usage = { inputTokens: 100, cachedInputTokens: 60, cacheWriteTokens: 30, outputTokens: 5 };
    expect(toAnthropicMessage('m', { ...result, usage }).usage).toEqual({
      input_tokens: 10,
      cache_read_input_tokens: 60,
      cache_creation_input_tokens: 30,
      output_tokens: 5,
    });
  });
});
