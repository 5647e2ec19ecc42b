import {
  chatResultOf,
  finishOf,
  GeminiStreamReader,
  googleReason,
  googleRetryAfterMs,
  usageOf,
} from './gemini-answer.js';

const envelope = (code: number, status: string, message: string, details?: unknown[]) =>
  JSON.stringify({ error: { code, message, status, ...(details ? { details } : {}) } });

describe('Gemini answers', () => {
  it('reads text (thoughts left out), usage with cached and thought tokens, and the stop', () => {
    expect(
      chatResultOf({
        candidates: [
          {
            content: {
              role: 'model',
              parts: [{ text: 'thinking…', thought: true }, { text: 'Hi ' }, { text: 'there' }],
            },
            finishReason: 'STOP',
          },
        ],
        usageMetadata: {
          promptTokenCount: 100,
          cachedContentTokenCount: 60,
          candidatesTokenCount: 5,
          thoughtsTokenCount: 7,
        },
      }),
    ).toEqual({
      message: { role: 'assistant', content: 'Hi there', refusal: null },
      finishReason: 'stop',
      usage: { inputTokens: 100, cachedInputTokens: 60, outputTokens: 12 },
    });
  });

  it('reads function calls as tool calls with ids (Gemini’s own or new ones) and keeps the signature', () => {
    const result = chatResultOf({
      candidates: [
        {
          content: {
            role: 'model',
            parts: [
              { functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: 'c2ln' },
              { functionCall: { id: 'g1', name: 'get_weather', args: { city: 'Rome' } } },
            ],
          },
          finishReason: 'STOP',
        },
      ],
    })!;
    expect(result.finishReason).toBe('tool_calls');
    expect(result.message.content).toBeNull();
    const [first, second] = result.message.tool_calls! as {
      id: string;
      function: { name: string; arguments: string };
      extra_content?: unknown;
    }[];
    expect(first!.id).toMatch(/^call_[\w-]{16}$/);
    expect(first!.function).toEqual({ name: 'get_weather', arguments: '{"city":"Paris"}' });
    expect(first!.extra_content).toEqual({ google: { thought_signature: 'c2ln' } });
    expect(second!.id).toBe('g1');
  });

  it.each([
    ['STOP', 'stop'],
    ['MAX_TOKENS', 'length'],
    ['SAFETY', 'content_filter'],
    ['RECITATION', 'content_filter'],
    ['BLOCKLIST', 'content_filter'],
    ['PROHIBITED_CONTENT', 'content_filter'],
    ['OTHER', 'stop'],
    [undefined, 'stop'],
  ])('finish reason %s is %s', (reason, finish) => {
    expect(finishOf(reason, false)).toBe(finish);
  });

  it('reads a blocked prompt as an empty answer stopped by the filter, and no candidate otherwise as nothing', () => {
    expect(chatResultOf({ promptFeedback: { blockReason: 'SAFETY' } })).toMatchObject({
      message: { content: '' },
      finishReason: 'content_filter',
    });
    expect(chatResultOf({})).toBeUndefined();
  });

  it('counts the tool-use prompt as input', () => {
    expect(usageOf({ promptTokenCount: 10, toolUsePromptTokenCount: 4, candidatesTokenCount: 1 })).toEqual({
      inputTokens: 14,
      cachedInputTokens: 0,
      outputTokens: 1,
    });
  });

  it('streams text and whole tool calls with running indexes, then the finish with the last usage', () => {
    const reader = new GeminiStreamReader();
    const chunk = (parts: object[], finishReason?: string, usage?: object) => ({
      candidates: [{ content: { role: 'model' as const, parts }, ...(finishReason ? { finishReason } : {}) }],
      ...(usage ? { usageMetadata: usage } : {}),
    });
    expect(reader.read(chunk([{ text: 'Hel' }], undefined, { promptTokenCount: 3 }))).toEqual([
      { delta: { role: 'assistant', content: 'Hel' }, finishReason: null },
    ]);
    expect(reader.read(chunk([{ text: 'lo' }]))).toEqual([{ delta: { content: 'lo' }, finishReason: null }]);
    const calls = reader.read(
      chunk(
        [{ functionCall: { name: 'a', args: {} } }, { functionCall: { name: 'b', args: { x: 1 } } }],
        'STOP',
        { promptTokenCount: 3, candidatesTokenCount: 4 },
      ),
    );
    expect(calls[0]!.delta.tool_calls!.map((call) => [call.index, call.function!.name])).toEqual([
      [0, 'a'],
      [1, 'b'],
    ]);
    expect(reader.end()).toEqual({
      delta: {},
      finishReason: 'tool_calls',
      usage: { inputTokens: 3, cachedInputTokens: 0, outputTokens: 4 },
    });
  });

  it('ends a stream at the output limit as length', () => {
    const reader = new GeminiStreamReader();
    reader.read({ candidates: [{ content: { parts: [{ text: 'x' }] }, finishReason: 'MAX_TOKENS' }] });
    expect(reader.end().finishReason).toBe('length');
  });
});

describe('googleReason', () => {
  it.each([
    [429, envelope(429, 'RESOURCE_EXHAUSTED', 'quota'), 'rate_limit'],
    [503, envelope(503, 'UNAVAILABLE', 'The model is overloaded.'), 'overloaded'],
    [
      400,
      envelope(
        400,
        'INVALID_ARGUMENT',
        'The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).',
      ),
      'context_length',
    ],
    [400, envelope(400, 'INVALID_ARGUMENT', 'contents is not specified'), 'bad_request'],
    [400, envelope(400, 'INVALID_ARGUMENT', 'API key not valid.', [{ reason: 'API_KEY_INVALID' }]), 'auth'],
    [403, envelope(403, 'PERMISSION_DENIED', 'denied'), 'auth'],
    [401, envelope(401, 'UNAUTHENTICATED', 'no'), 'auth'],
    [404, envelope(404, 'NOT_FOUND', 'models/x is not found'), 'bad_request'],
    [500, envelope(500, 'INTERNAL', 'oops'), undefined],
    [504, 'not json', undefined],
  ])('%i %s is %s', (status, body, reason) => {
    expect(googleReason(status, body)).toBe(reason);
  });

  it('reads the wait of a 429 from its RetryInfo', () => {
    expect(googleRetryAfterMs(envelope(429, 'RESOURCE_EXHAUSTED', 'q', [{ retryDelay: '12.5s' }]))).toBe(
      12_500,
    );
    expect(googleRetryAfterMs(envelope(429, 'RESOURCE_EXHAUSTED', 'q'))).toBeUndefined();
  });
});
