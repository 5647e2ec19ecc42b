import {
  bedrockReason,
  chatResult,
  ConverseStreamDeltas,
  finishOf,
  streamException,
  toUsage,
} from './converse-answer.js';

describe('Converse answers in the chat-completions shape', () => {
  it('reads text and tool uses into one message', () => {
    expect(
      chatResult(
        {
          output: {
            message: {
              content: [
                { text: 'Let me look. ' },
                { toolUse: { toolUseId: 'tu1', name: 'weather', input: { city: 'Oslo' } } },
              ],
            },
          },
          stopReason: 'tool_use',
          usage: { inputTokens: 5, outputTokens: 7 },
        },
        'm',
      ),
    ).toEqual({
      message: {
        role: 'assistant',
        content: 'Let me look. ',
        refusal: null,
        tool_calls: [
          { id: 'tu1', type: 'function', function: { name: 'weather', arguments: '{"city":"Oslo"}' } },
        ],
      },
      finishReason: 'tool_calls',
      usage: { inputTokens: 5, cachedInputTokens: 0, outputTokens: 7 },
    });
    expect(() => chatResult({}, 'm')).toThrow("upstream of model 'm' answered no message");
  });

  it('maps every stop reason', () => {
    expect(
      [
        'end_turn',
        'stop_sequence',
        'max_tokens',
        'model_context_window_exceeded',
        'tool_use',
        'guardrail_intervened',
        'content_filtered',
      ].map(finishOf),
    ).toEqual(['stop', 'stop', 'length', 'length', 'tool_calls', 'content_filter', 'content_filter']);
  });

  it('counts cache reads and writes into the input tokens', () => {
    expect(
      toUsage({ inputTokens: 10, outputTokens: 2, cacheReadInputTokens: 60, cacheWriteInputTokens: 30 }),
    ).toEqual({
      inputTokens: 100,
      cachedInputTokens: 60,
      cacheWriteTokens: 30,
      outputTokens: 2,
    });
  });

  it('turns stream events into deltas: text, tool calls numbered in order, the stop, then usage', () => {
    const deltas = new ConverseStreamDeltas();
    const events: [string, object][] = [
      ['messageStart', { role: 'assistant' }],
      ['contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Hi' } }],
      ['contentBlockStop', { contentBlockIndex: 0 }],
      ['contentBlockStart', { contentBlockIndex: 1, start: { toolUse: { toolUseId: 'a', name: 'f' } } }],
      ['contentBlockDelta', { contentBlockIndex: 1, delta: { toolUse: { input: '{"x":' } } }],
      ['contentBlockStart', { contentBlockIndex: 2, start: { toolUse: { toolUseId: 'b', name: 'g' } } }],
      ['contentBlockDelta', { contentBlockIndex: 1, delta: { toolUse: { input: '1}' } } }],
      ['messageStop', { stopReason: 'tool_use' }],
      ['metadata', { usage: { inputTokens: 3, outputTokens: 4 } }],
    ];
    expect(events.map(([type, event]) => deltas.delta(type, event))).toEqual([
      { delta: { role: 'assistant' }, finishReason: null },
      { delta: { content: 'Hi' }, finishReason: null },
      undefined,
      {
        delta: {
          tool_calls: [{ index: 0, id: 'a', type: 'function', function: { name: 'f', arguments: '' } }],
        },
        finishReason: null,
      },
      { delta: { tool_calls: [{ index: 0, function: { arguments: '{"x":' } }] }, finishReason: null },
      {
        delta: {
          tool_calls: [{ index: 1, id: 'b', type: 'function', function: { name: 'g', arguments: '' } }],
        },
        finishReason: null,
      },
      { delta: { tool_calls: [{ index: 0, function: { arguments: '1}' } }] }, finishReason: null },
      { delta: {}, finishReason: 'tool_calls' },
      { delta: {}, finishReason: null, usage: { inputTokens: 3, cachedInputTokens: 0, outputTokens: 4 } },
    ]);
  });

  it('reads why Bedrock refused from its error type and message', () => {
    const type = (name: string) => ({
      'x-amzn-errortype': `${name}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
    });
    expect(bedrockReason(429, '{"message":"Too many requests"}', type('ThrottlingException'))).toBe(
      'rate_limit',
    );
    expect(bedrockReason(503, '{"message":"unable"}', type('ServiceUnavailableException'))).toBe(
      'overloaded',
    );
    expect(
      bedrockReason(400, '{"message":"Input is too long for requested model."}', type('ValidationException')),
    ).toBe('context_length');
    expect(bedrockReason(400, '{"message":"temperature: range: 0..1"}', type('ValidationException'))).toBe(
      'bad_request',
    );
    expect(bedrockReason(403, '{"message":"invalid"}', type('UnrecognizedClientException'))).toBe('auth');
    expect(bedrockReason(500, '{}', type('InternalServerException'))).toBeUndefined();
  });

  it('reads an exception event as the error its HTTP answer would be', () => {
    expect(streamException('throttlingException', '{"message":"slow down"}', 'm')).toMatchObject({
      upstreamStatus: 429,
      reason: 'rate_limit',
    });
    expect(
      streamException('validationException', '{"message":"Input is too long for requested model."}', 'm'),
    ).toMatchObject({
      upstreamStatus: 400,
      reason: 'context_length',
    });
    expect(streamException('modelStreamErrorException', '{}', 'm')).toMatchObject({
      upstreamStatus: undefined,
    });
  });
});
