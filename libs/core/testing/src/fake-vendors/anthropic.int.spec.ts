// The fake Anthropic upstream is faithful: the official `@anthropic-ai/sdk` pointed at it parses its answers, its
// stream (text and parallel tool calls, accumulated by the SDK's own MessageStream) and its errors by status.
import Anthropic from '@anthropic-ai/sdk';
import { startFakeAnthropic, type FakeAnthropicUpstream } from './anthropic.js';

describe('fake Anthropic upstream (read with @anthropic-ai/sdk)', () => {
  let fake: FakeAnthropicUpstream;
  const sdk = (apiKey = 'sk-ant-fake') =>
    new Anthropic({ baseURL: fake.baseUrl.replace(/\/v1$/, ''), apiKey, maxRetries: 0 });

  beforeAll(async () => {
    fake = await startFakeAnthropic({ apiKey: 'sk-ant-fake' });
  });
  afterEach(() => {
    fake.script({});
    fake.failMidStream(undefined);
  });
  afterAll(() => fake.close());

  it('answers a message the SDK reads, with cache usage, and reads the request back in neutral terms', async () => {
    fake.script({ usage: { input: 100, output: 7, cacheRead: 60, cacheWrite: 30 } });
    const message = await sdk().messages.create({
      model: 'claude-fake',
      max_tokens: 64,
      system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello there' }] }],
      stop_sequences: ['END'],
    });
    expect(message).toMatchObject({
      type: 'message',
      role: 'assistant',
      model: 'claude-fake',
      content: [{ type: 'text', text: 'Echo: Hello there' }],
      stop_reason: 'end_turn',
      usage: {
        input_tokens: 10,
        output_tokens: 7,
        cache_read_input_tokens: 60,
        cache_creation_input_tokens: 30,
      },
    });
    expect(fake.requests.at(-1)).toMatchObject({
      model: 'claude-fake',
      stream: false,
      system: 'Be brief.',
      userTexts: ['Hello there'],
      stopSequences: ['END'],
      maxTokens: 64,
      cacheMarks: 1,
      headers: { authorization: 'Bearer sk-ant-fake', 'anthropic-version': expect.any(String) },
    });
  });

  it('streams parallel tool calls that the SDK accumulates into tool_use blocks', async () => {
    fake.script({
      toolCalls: [
        { name: 'weather', arguments: { city: 'Berlin' } },
        { name: 'time', arguments: { zone: 'CET' } },
      ],
      usage: { input: 50, output: 12, cacheRead: 40 },
    });
    const stream = sdk().messages.stream({
      model: 'claude-fake',
      max_tokens: 64,
      tools: [
        { name: 'weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } },
        { name: 'time', input_schema: { type: 'object' }, cache_control: { type: 'ephemeral' } },
      ],
      messages: [{ role: 'user', content: 'Weather and time?' }],
    });
    const types: string[] = [];
    stream.on('streamEvent', (event) => types.push(event.type));
    const message = await stream.finalMessage();
    expect(message.stop_reason).toBe('tool_use');
    expect(message.content).toEqual([
      expect.objectContaining({ type: 'tool_use', name: 'weather', input: { city: 'Berlin' } }),
      expect.objectContaining({ type: 'tool_use', name: 'time', input: { zone: 'CET' } }),
    ]);
    expect(message.usage).toMatchObject({ input_tokens: 10, output_tokens: 12, cache_read_input_tokens: 40 });
    expect(types[0]).toBe('message_start');
    expect(types.at(-1)).toBe('message_stop');
    expect(fake.requests.at(-1)).toMatchObject({ stream: true, tools: ['weather', 'time'], cacheMarks: 1 });
  });

  it('streams text the SDK joins, and an error event it throws', async () => {
    fake.script({ text: 'one two three' });
    const text = await sdk()
      .messages.stream({
        model: 'claude-fake',
        max_tokens: 16,
        messages: [{ role: 'user', content: 'count' }],
      })
      .finalText();
    expect(text).toBe('one two three');
    fake.failMidStream('overloaded_error');
    const failed = sdk()
      .messages.stream({
        model: 'claude-fake',
        max_tokens: 16,
        messages: [{ role: 'user', content: 'count' }],
      })
      .finalText();
    await expect(failed).rejects.toMatchObject({
      error: { type: 'error', error: { type: 'overloaded_error' } },
    });
  });

  it.each([
    ['rate_limit', 429, Anthropic.RateLimitError, 'rate_limit_error'],
    ['overloaded', 529, Anthropic.InternalServerError, 'overloaded_error'],
    ['context_length', 400, Anthropic.BadRequestError, 'invalid_request_error'],
    ['bad_request', 400, Anthropic.BadRequestError, 'invalid_request_error'],
    ['auth', 401, Anthropic.AuthenticationError, 'authentication_error'],
  ] as const)(
    'fails %s with status %i in the envelope the SDK reads',
    async (failure, status, type, errorType) => {
      fake.script({ failure, retryAfterSeconds: 7 });
      const error = await sdk()
        .messages.create({ model: 'claude-fake', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(type);
      expect(error).toMatchObject({ status, error: { type: 'error', error: { type: errorType } } });
      if (failure === 'rate_limit')
        expect((error as InstanceType<typeof type>).headers?.get('retry-after')).toBe('7');
    },
  );

  it('refuses a wrong key (401), and what the API refuses: a tool_use without its tool_result (400)', async () => {
    await expect(
      sdk('sk-wrong').messages.create({
        model: 'm',
        max_tokens: 8,
        messages: [{ role: 'user', content: 'hi' }],
      }),
    ).rejects.toBeInstanceOf(Anthropic.AuthenticationError);
    await expect(
      sdk().messages.create({
        model: 'm',
        max_tokens: 8,
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'weather', input: {} }] },
          { role: 'user', content: 'and?' },
        ],
      }),
    ).rejects.toMatchObject({
      status: 400,
      error: { error: { message: expect.stringContaining('tool_result') } },
    });
  });
});
