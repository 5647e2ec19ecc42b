import { UpstreamError, type ChatDelta } from '../provider.port.js';
import {
  anthropicReason,
  MessagesStreamDecoder,
  toChatResult,
  toUsage,
  type WireEvent,
} from './messages-answer.js';

const envelope = (type: string, message: string) =>
  JSON.stringify({ type: 'error', error: { type, message } });

describe('Anthropic answers as the port reads them', () => {
  it('reads a message: text joined, tool_use blocks as tool calls with JSON arguments, stop reason, usage', () => {
    const result = toChatResult(
      {
        type: 'message',
        content: [
          { type: 'text', text: 'Let me check. ' },
          { type: 'tool_use', id: 'toolu_1', name: 'weather', input: { city: 'Berlin' } },
          { type: 'tool_use', id: 'toolu_2', name: 'time', input: {} },
        ],
        stop_reason: 'tool_use',
        usage: {
          input_tokens: 10,
          output_tokens: 5,
          cache_read_input_tokens: 60,
          cache_creation_input_tokens: 30,
        },
      },
      'claude',
    );
    expect(result).toEqual({
      message: {
        role: 'assistant',
        content: 'Let me check. ',
        refusal: null,
        tool_calls: [
          { id: 'toolu_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Berlin"}' } },
          { id: 'toolu_2', type: 'function', function: { name: 'time', arguments: '{}' } },
        ],
      },
      finishReason: 'tool_calls',
      usage: { inputTokens: 100, cachedInputTokens: 60, cacheWriteTokens: 30, outputTokens: 5 },
    });
  });

  it.each([
    ['end_turn', 'stop'],
    ['stop_sequence', 'stop'],
    ['pause_turn', 'stop'],
    ['max_tokens', 'length'],
    ['model_context_window_exceeded', 'length'],
    ['tool_use', 'tool_calls'],
    ['refusal', 'content_filter'],
  ])('maps stop_reason %s to %s', (stopReason, finish) => {
    const result = toChatResult(
      { type: 'message', content: [{ type: 'text', text: 'x' }], stop_reason: stopReason },
      'm',
    );
    expect(result.finishReason).toBe(finish);
  });

  it('refuses an answer that is not a message', () => {
    expect(() => toChatResult({ type: 'error' }, 'm')).toThrow(UpstreamError);
  });

  it('counts usage without cache fields as plain input', () => {
    expect(toUsage({ input_tokens: 12, output_tokens: 3 })).toEqual({
      inputTokens: 12,
      cachedInputTokens: 0,
      cacheWriteTokens: 0,
      outputTokens: 3,
    });
  });

  it.each([
    [
      429,
      envelope('rate_limit_error', 'Number of request tokens has exceeded your rate limit'),
      'rate_limit',
    ],
    [529, envelope('overloaded_error', 'Overloaded'), 'overloaded'],
    [
      400,
      envelope('invalid_request_error', 'prompt is too long: 250123 tokens > 200000 maximum'),
      'context_length',
    ],
    [400, envelope('invalid_request_error', 'messages.0.content: Field required'), undefined],
    [401, envelope('authentication_error', 'invalid x-api-key'), undefined],
    [500, 'not json', undefined],
  ])('reads the reason of a %i from its envelope', (status, body, reason) => {
    expect(anthropicReason(status, body)).toBe(reason);
  });
});

describe('MessagesStreamDecoder', () => {
  const decode = (events: WireEvent[]) => {
    const decoder = new MessagesStreamDecoder('m');
    const deltas = events
      .map((event) => decoder.decode(event))
      .filter((delta): delta is ChatDelta => !!delta);
    return { deltas, done: decoder.done };
  };

  it('turns text and parallel tool_use blocks into deltas, ending with the finish reason and cumulative usage', () => {
    const { deltas, done } = decode([
      {
        type: 'message_start',
        message: {
          usage: {
            input_tokens: 10,
            cache_read_input_tokens: 60,
            cache_creation_input_tokens: 0,
            output_tokens: 1,
          },
        },
      },
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      { type: 'ping' },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Checking.' } },
      { type: 'content_block_stop', index: 0 },
      {
        type: 'content_block_start',
        index: 1,
        content_block: { type: 'tool_use', id: 'toolu_1', name: 'weather', input: {} },
      },
      { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '' } },
      {
        type: 'content_block_delta',
        index: 1,
        delta: { type: 'input_json_delta', partial_json: '{"city":' },
      },
      {
        type: 'content_block_start',
        index: 2,
        content_block: { type: 'tool_use', id: 'toolu_2', name: 'time', input: {} },
      },
      { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '{}' } },
      {
        type: 'content_block_delta',
        index: 1,
        delta: { type: 'input_json_delta', partial_json: '"Berlin"}' },
      },
      {
        type: 'message_delta',
        delta: { stop_reason: 'tool_use' },
        usage: { output_tokens: 20, input_tokens: null, cache_creation_input_tokens: 30 },
      },
      { type: 'message_stop' },
    ]);
    expect(done).toBe(true);
    expect(deltas).toEqual([
      { delta: { content: 'Checking.' }, finishReason: null },
      {
        delta: {
          tool_calls: [
            { index: 0, id: 'toolu_1', type: 'function', function: { name: 'weather', arguments: '' } },
          ],
        },
        finishReason: null,
      },
      { delta: { tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }, finishReason: null },
      {
        delta: {
          tool_calls: [
            { index: 1, id: 'toolu_2', type: 'function', function: { name: 'time', arguments: '' } },
          ],
        },
        finishReason: null,
      },
      { delta: { tool_calls: [{ index: 1, function: { arguments: '{}' } }] }, finishReason: null },
      { delta: { tool_calls: [{ index: 0, function: { arguments: '"Berlin"}' } }] }, finishReason: null },
      {
        delta: {},
        finishReason: 'tool_calls',
        usage: { inputTokens: 100, cachedInputTokens: 60, cacheWriteTokens: 30, outputTokens: 20 },
      },
    ]);
  });

  it.each([
    ['overloaded_error', 'overloaded'],
    ['rate_limit_error', 'rate_limit'],
    ['api_error', undefined],
  ])('throws an error event (%s) as an UpstreamError with reason %s', (type, reason) => {
    const decoder = new MessagesStreamDecoder('m');
    let error: unknown;
    try {
      decoder.decode({ type: 'error', error: { type, message: 'Overloaded' } });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).toMatchObject({ kind: 'rejected', reason });
  });
});
