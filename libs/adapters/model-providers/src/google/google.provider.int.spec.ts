import { startFakeGoogle } from '#testing/fake-vendors/google';
import type { FakeVendorUpstream, VendorFailure } from '#testing/fake-vendors/vendor-upstream';
import { ValidationError } from '#kernel';
import { ModelRegistry } from '../model-registry.js';
import type { ChatDelta, ChatRequest } from '../provider.port.js';
import { GoogleProvider } from './google.provider.js';

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAAB';

describe('GoogleProvider (against a fake Gemini API)', () => {
  let fake: FakeVendorUpstream;
  let registry: ModelRegistry;
  let provider: GoogleProvider;
  const signal = () => new AbortController().signal;
  const chat = () => registry.get('gemini')!;
  const ask = (request: Partial<ChatRequest> = {}): ChatRequest => ({
    messages: [{ role: 'user', content: 'hello there' }],
    ...request,
  });
  const streamed = async (request: ChatRequest) => {
    const deltas: ChatDelta[] = [];
    for await (const delta of provider.chatStream(chat(), request, signal())) deltas.push(delta);
    return deltas;
  };
  const weather = {
    type: 'function' as const,
    function: {
      name: 'get_weather',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, additionalProperties: false },
    },
  };

  beforeAll(async () => {
    fake = await startFakeGoogle({ apiKey: 'g-secret' });
    registry = ModelRegistry.build(
      {
        providers: {
          gemini: { type: 'google', baseUrl: fake.baseUrl, apiKeyEnv: 'GEMINI_KEY', timeoutMs: 30_000 },
        },
        models: [
          { key: 'gemini', modelId: 'gemini-2.5-flash', provider: 'gemini', kind: 'chat' },
          { key: 'gemini-embed', modelId: 'gemini-embedding-001', provider: 'gemini', kind: 'embedding' },
        ],
      },
      {
        hostingRegion: 'local',
        upstreamTimeoutMs: 1000,
        defaultChatModelOverride: undefined,
        secret: (name) => (name === 'GEMINI_KEY' ? 'g-secret' : undefined),
      },
    );
    provider = new GoogleProvider(registry);
  });
  afterEach(() => fake.script({}));
  afterAll(async () => {
    await provider.close();
    await fake.close();
  });

  it('answers text with the system prompt, the sampling fields and the key in its header', async () => {
    const result = await provider.chat(
      chat(),
      ask({
        messages: [
          { role: 'system', content: 'be brief' },
          { role: 'user', content: 'hello there' },
        ],
        max_tokens: 50,
        temperature: 0.2,
        stop: ['END'],
      }),
      signal(),
    );
    expect(result.message.content).toBe('Echo: hello there');
    expect(result.finishReason).toBe('stop');
    expect(fake.requests.at(-1)).toMatchObject({
      model: 'gemini-2.5-flash',
      stream: false,
      system: 'be brief',
      userTexts: ['hello there'],
      maxTokens: 50,
      temperature: 0.2,
      stopSequences: ['END'],
    });
    expect(fake.requests.at(-1)!.headers['x-goog-api-key']).toBe('g-secret');
  });

  it('reports usage with cached tokens as part of the input', async () => {
    fake.script({ usage: { input: 1000, output: 20, cacheRead: 800 } });
    const result = await provider.chat(chat(), ask(), signal());
    expect(result.usage).toEqual({ inputTokens: 1000, cachedInputTokens: 800, outputTokens: 20 });
  });

  it('streams text in pieces, then the stop and the usage', async () => {
    fake.script({ text: 'one two three', usage: { input: 7, output: 3, cacheRead: 2 } });
    const deltas = await streamed(ask());
    expect(deltas.map((delta) => delta.delta.content ?? '').join('')).toBe('one two three');
    expect(deltas.filter((delta) => delta.delta.content).length).toBe(3);
    expect(deltas.at(-1)).toEqual({
      delta: {},
      finishReason: 'stop',
      usage: { inputTokens: 7, cachedInputTokens: 2, outputTokens: 3 },
    });
    expect(fake.requests.at(-1)!.stream).toBe(true);
  });

  it('answers parallel tool calls, whole and streamed, and sends their results back named', async () => {
    fake.script({
      toolCalls: [
        { name: 'get_weather', arguments: { city: 'Paris' } },
        { name: 'get_weather', arguments: { city: 'Rome' } },
      ],
    });
    const result = await provider.chat(chat(), ask({ tools: [weather], tool_choice: 'auto' }), signal());
    expect(result.finishReason).toBe('tool_calls');
    const calls = result.message.tool_calls as { id: string; function: { arguments: string } }[];
    expect(calls.map((call) => JSON.parse(call.function.arguments))).toEqual([
      { city: 'Paris' },
      { city: 'Rome' },
    ]);
    expect(fake.requests.at(-1)!.tools).toEqual(['get_weather']);
    const deltas = await streamed(ask({ tools: [weather] }));
    expect(deltas.flatMap((delta) => delta.delta.tool_calls ?? []).map((call) => call.index)).toEqual([0, 1]);
    expect(deltas.at(-1)!.finishReason).toBe('tool_calls');
    fake.script({ text: 'Sunny in both' });
    const answer = await provider.chat(
      chat(),
      ask({
        tools: [weather],
        messages: [
          { role: 'user', content: 'weather in Paris and Rome?' },
          result.message as ChatRequest['messages'][number],
          { role: 'tool', tool_call_id: calls[0]!.id, content: 'sunny' },
          { role: 'tool', tool_call_id: calls[1]!.id, content: 'also sunny' },
        ],
      }),
      signal(),
    );
    expect(answer.message.content).toBe('Sunny in both');
    expect(fake.requests.at(-1)!.toolResults).toEqual([
      { callId: calls[0]!.id, text: 'sunny' },
      { callId: calls[1]!.id, text: 'also sunny' },
    ]);
  });

  it('sends a data-URL image inline', async () => {
    await provider.chat(
      chat(),
      ask({
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'what is this?' },
              { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
            ],
          },
        ],
      }),
      signal(),
    );
    expect(fake.requests.at(-1)!.images).toEqual([{ mediaType: 'image/png', bytes: PNG.length }]);
  });

  it('reads the output limit as length', async () => {
    fake.script({ stop: 'length' });
    expect((await provider.chat(chat(), ask(), signal())).finishReason).toBe('length');
    expect((await streamed(ask())).at(-1)!.finishReason).toBe('length');
  });

  it.each([
    ['rate_limit', 429],
    ['overloaded', 503],
    ['context_length', 400],
    ['bad_request', 400],
    ['auth', 400],
  ] as const)('maps %s to its reason, whole and streamed, never quoting Google', async (failure, status) => {
    fake.script({ failure: failure as VendorFailure, retryAfterSeconds: 9 });
    for (const call of [provider.chat(chat(), ask(), signal()), streamed(ask())]) {
      const error = (await call.catch((e: unknown) => e)) as Record<string, unknown>;
      expect(error).toMatchObject({ kind: 'rejected', upstreamStatus: status, reason: failure });
      expect(error.message).not.toMatch(/quota|overloaded|token count|API key|oneof/);
      if (failure === 'rate_limit') expect(error.retryAfterMs).toBe(9000);
    }
  });

  it('refuses an image link without a media type before calling Gemini', async () => {
    const before = fake.requests.length;
    await expect(
      provider.chat(
        chat(),
        ask({
          messages: [
            { role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://x.test/cat' } }] },
          ],
        }),
        signal(),
      ),
    ).rejects.toBeInstanceOf(ValidationError);
    expect(fake.requests.length).toBe(before);
  });

  it('embeds texts in order, and refuses token ids', async () => {
    const result = await provider.embed(registry.get('gemini-embed')!, ['alpha', 'beta'], signal());
    expect(result.vectors).toHaveLength(2);
    expect(result.vectors[0]).toHaveLength(8);
    expect(result.vectors[0]).not.toEqual(result.vectors[1]);
    expect(result.inputTokens).toBeGreaterThan(0);
    expect(fake.requests.at(-1)!.userTexts).toEqual(['alpha', 'beta']);
    await expect(provider.embed(registry.get('gemini-embed')!, [[1, 2]], signal())).rejects.toMatchObject({
      code: 'unsupported_input',
    });
  });
});
