import { startFakeAnthropic, type FakeAnthropicUpstream } from '#testing/fake-vendors/anthropic';
import { ModelRegistry } from '../model-registry.js';
import { UpstreamError, type ChatDelta, type ChatRequest } from '../provider.port.js';
import { AnthropicProvider } from './anthropic.provider.js';

const ephemeral = { type: 'ephemeral' } as const;
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

describe('AnthropicProvider (against the fake Anthropic upstream)', () => {
  let fake: FakeAnthropicUpstream;
  let registry: ModelRegistry;
  let provider: AnthropicProvider;
  const signal = () => new AbortController().signal;
  const model = () => registry.get('claude')!;
  const ask = (content: string): ChatRequest => ({ messages: [{ role: 'user', content }] });

  const collect = async (request: ChatRequest) => {
    const deltas: ChatDelta[] = [];
    for await (const delta of provider.chatStream(model(), request, signal())) deltas.push(delta);
    return deltas;
  };

  beforeAll(async () => {
    fake = await startFakeAnthropic({ apiKey: 'sk-ant-upstream' });
    registry = ModelRegistry.build(
      {
        providers: {
          anthropic: {
            type: 'anthropic',
            baseUrl: fake.baseUrl,
            apiKeyEnv: 'ANTHROPIC_KEY',
            timeoutMs: 30_000,
          },
        },
        models: [{ key: 'claude', modelId: 'claude-fake-1', provider: 'anthropic', kind: 'chat' }],
      },
      {
        hostingRegion: 'local',
        upstreamTimeoutMs: 1000,
        defaultChatModelOverride: undefined,
        secret: (name) => (name === 'ANTHROPIC_KEY' ? 'sk-ant-upstream' : undefined),
      },
    );
    provider = new AnthropicProvider(registry);
  });
  afterEach(() => {
    fake.script({});
    fake.failMidStream(undefined);
  });
  afterAll(async () => {
    await provider.close();
    await fake.close();
  });

  it('answers text with the system prompt, key, version, model id and max_tokens sent as Anthropic wants them', async () => {
    fake.script({ usage: { input: 20, output: 4 } });
    const result = await provider.chat(
      model(),
      {
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'hi there' },
        ],
        temperature: 0.2,
      },
      signal(),
    );
    expect(result).toEqual({
      message: { role: 'assistant', content: 'Echo: hi there', refusal: null },
      finishReason: 'stop',
      usage: { inputTokens: 20, cachedInputTokens: 0, cacheWriteTokens: 0, outputTokens: 4 },
    });
    expect(fake.requests.at(-1)).toMatchObject({
      model: 'claude-fake-1',
      stream: false,
      system: 'Be brief.',
      userTexts: ['hi there'],
      maxTokens: 4096,
      temperature: 0.2,
      headers: { 'x-api-key': 'sk-ant-upstream', 'anthropic-version': '2023-06-01' },
    });
  });

  it('streams text deltas and ends with the finish reason and usage', async () => {
    fake.script({ text: 'one two three', usage: { input: 9, output: 3 } });
    const deltas = await collect(ask('count'));
    expect(deltas.map((delta) => delta.delta.content ?? '').join('')).toBe('one two three');
    expect(deltas.at(-1)).toEqual({
      delta: {},
      finishReason: 'stop',
      usage: { inputTokens: 9, cachedInputTokens: 0, cacheWriteTokens: 0, outputTokens: 3 },
    });
  });

  it('answers parallel tool calls, streamed and not, and sends their results back as tool_result blocks', async () => {
    const calls = [
      { name: 'weather', arguments: { city: 'Berlin' } },
      { name: 'weather', arguments: { city: 'Paris' } },
    ];
    fake.script({ toolCalls: calls });
    const request: ChatRequest = {
      ...ask('Weather in Berlin and Paris?'),
      tools: [{ type: 'function', function: { name: 'weather', parameters: { type: 'object' } } }],
    };
    const result = await provider.chat(model(), request, signal());
    expect(result.finishReason).toBe('tool_calls');
    const toolCalls = result.message.tool_calls!;
    expect(toolCalls.map((call) => call.type === 'function' && JSON.parse(call.function.arguments))).toEqual([
      { city: 'Berlin' },
      { city: 'Paris' },
    ]);
    expect(fake.requests.at(-1)!.tools).toEqual(['weather']);

    const deltas = await collect(request);
    const args = ['', ''];
    for (const delta of deltas)
      for (const call of delta.delta.tool_calls ?? []) args[call.index] += call.function?.arguments ?? '';
    expect(args.map((json) => JSON.parse(json))).toEqual([{ city: 'Berlin' }, { city: 'Paris' }]);
    expect(deltas.at(-1)!.finishReason).toBe('tool_calls');

    fake.script({ text: 'Sunny and rainy.' });
    const answer = await provider.chat(
      model(),
      {
        ...request,
        messages: [
          ...request.messages,
          result.message,
          { role: 'tool', tool_call_id: toolCalls[0]!.id, content: 'sunny' },
          { role: 'tool', tool_call_id: toolCalls[1]!.id, content: 'rainy' },
        ],
      },
      signal(),
    );
    expect(answer.message.content).toBe('Sunny and rainy.');
    expect(fake.requests.at(-1)!.toolResults).toEqual([
      { callId: toolCalls[0]!.id, text: 'sunny' },
      { callId: toolCalls[1]!.id, text: 'rainy' },
    ]);
  });

  it('sends an image from a data URL as a base64 image block', async () => {
    await provider.chat(
      model(),
      {
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'What is this?' },
              { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
            ],
          },
        ],
      },
      signal(),
    );
    expect(fake.requests.at(-1)!.images).toEqual([{ mediaType: 'image/png', bytes: PNG.length }]);
  });

  it('reads the stop reasons: max_tokens as length, a stop sequence as stop', async () => {
    fake.script({ stop: 'length' });
    expect((await provider.chat(model(), { ...ask('long'), max_tokens: 5 }, signal())).finishReason).toBe(
      'length',
    );
    expect(fake.requests.at(-1)!.maxTokens).toBe(5);
    fake.script({ text: 'one two END three' });
    const stopped = await provider.chat(model(), { ...ask('x'), stop: ['END'] }, signal());
    expect(stopped).toMatchObject({ message: { content: 'one two ' }, finishReason: 'stop' });
    expect(fake.requests.at(-1)!.stopSequences).toEqual(['END']);
  });

  it('sends cache marks to Anthropic and counts cache reads and writes in the usage, streamed too', async () => {
    fake.script({ usage: { input: 1000, output: 10, cacheRead: 600, cacheWrite: 300 } });
    const request = {
      messages: [
        { role: 'system', content: [{ type: 'text', text: 'A long document', cache_control: ephemeral }] },
        { role: 'user', content: 'Summarise it', cache_control: ephemeral },
      ],
      tools: [{ type: 'function', function: { name: 'lookup' }, cache_control: ephemeral }],
    } as unknown as ChatRequest;
    const usage = { inputTokens: 1000, cachedInputTokens: 600, cacheWriteTokens: 300, outputTokens: 10 };
    expect((await provider.chat(model(), request, signal())).usage).toEqual(usage);
    expect(fake.requests.at(-1)!.cacheMarks).toBe(3);
    expect((await collect(request)).at(-1)!.usage).toEqual(usage);
  });

  it.each([
    ['rate_limit', 429, 'rate_limit'],
    ['overloaded', 529, 'overloaded'],
    ['context_length', 400, 'context_length'],
    ['bad_request', 400, 'bad_request'],
    ['auth', 401, 'auth'],
  ] as const)(
    'maps a %s failure (%i) to an UpstreamError with that reason',
    async (failure, status, reason) => {
      fake.script({ failure, retryAfterSeconds: 12 });
      const error = await provider.chat(model(), ask('hi'), signal()).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(UpstreamError);
      expect(error).toMatchObject({ kind: 'rejected', upstreamStatus: status, reason });
      if (failure === 'rate_limit') expect((error as UpstreamError).retryAfterMs).toBe(12_000);
      expect((error as Error).message).not.toContain('x-api-key');
    },
  );

  it('throws an error event mid-stream (overloaded) as an UpstreamError after the first pieces', async () => {
    fake.script({ text: 'one two three four' });
    fake.failMidStream('overloaded_error');
    const seen: ChatDelta[] = [];
    const error = await (async () => {
      for await (const delta of provider.chatStream(model(), ask('x'), signal())) seen.push(delta);
    })().catch((caught: unknown) => caught);
    expect(seen.length).toBeGreaterThan(0);
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).toMatchObject({ reason: 'overloaded' });
  });
});
