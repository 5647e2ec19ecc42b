import { startFakeOllama } from '#testing/fake-vendors/ollama';
import type { FakeVendorUpstream, VendorFailure } from '#testing/fake-vendors/vendor-upstream';
import { ModelRegistry } from '../model-registry.js';
import type { ChatDelta, ChatRequest } from '../provider.port.js';
import { OllamaProvider } from './ollama.provider.js';

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAAB';

describe('OllamaProvider (against a fake Ollama)', () => {
  let fake: FakeVendorUpstream;
  let registry: ModelRegistry;
  let provider: OllamaProvider;
  const signal = () => new AbortController().signal;
  const chat = () => registry.get('llama')!;
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
      parameters: { type: 'object', properties: { city: { type: 'string' } } },
    },
  };

  beforeAll(async () => {
    fake = await startFakeOllama({ apiKey: 'o-secret' });
    registry = ModelRegistry.build(
      {
        providers: {
          local: { type: 'ollama', baseUrl: fake.baseUrl, apiKeyEnv: 'OLLAMA_KEY', timeoutMs: 30_000 },
        },
        models: [
          { key: 'llama', modelId: 'llama3.2', provider: 'local', kind: 'chat' },
          { key: 'nomic', modelId: 'nomic-embed-text', provider: 'local', kind: 'embedding' },
        ],
      },
      {
        hostingRegion: 'local',
        upstreamTimeoutMs: 1000,
        defaultChatModelOverride: undefined,
        secret: (name) => (name === 'OLLAMA_KEY' ? 'o-secret' : undefined),
      },
    );
    provider = new OllamaProvider(registry);
  });
  afterEach(() => fake.script({}));
  afterAll(async () => {
    await provider.close();
    await fake.close();
  });

  it('answers text with the system prompt, the options and the bearer key', async () => {
    fake.script({ usage: { input: 30, output: 4 } });
    const result = await provider.chat(
      chat(),
      ask({
        messages: [
          { role: 'system', content: 'be brief' },
          { role: 'user', content: 'hello there' },
        ],
        max_completion_tokens: 50,
        temperature: 0.2,
        stop: 'END',
      }),
      signal(),
    );
    expect(result).toEqual({
      message: { role: 'assistant', content: 'Echo: hello there', refusal: null },
      finishReason: 'stop',
      usage: { inputTokens: 30, cachedInputTokens: 0, outputTokens: 4 },
    });
    expect(fake.requests.at(-1)).toMatchObject({
      model: 'llama3.2',
      stream: false,
      system: 'be brief',
      maxTokens: 50,
      temperature: 0.2,
      stopSequences: ['END'],
    });
    expect(fake.requests.at(-1)!.headers.authorization).toBe('Bearer o-secret');
  });

  it('streams NDJSON lines as deltas, then the stop and the usage', async () => {
    fake.script({ text: 'one two three', usage: { input: 6, output: 3 } });
    const deltas = await streamed(ask());
    expect(deltas.map((delta) => delta.delta.content ?? '').join('')).toBe('one two three');
    expect(deltas.filter((delta) => delta.delta.content).length).toBe(3);
    expect(deltas.at(-1)).toEqual({
      delta: {},
      finishReason: 'stop',
      usage: { inputTokens: 6, cachedInputTokens: 0, outputTokens: 3 },
    });
    expect(fake.requests.at(-1)!.stream).toBe(true);
  });

  it('answers parallel tool calls, whole and streamed, and sends their results back by name', async () => {
    fake.script({
      toolCalls: [
        { name: 'get_weather', arguments: { city: 'Paris' } },
        { name: 'get_weather', arguments: { city: 'Rome' } },
      ],
    });
    const result = await provider.chat(chat(), ask({ tools: [weather] }), signal());
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
    await provider.chat(
      chat(),
      ask({
        messages: [
          { role: 'user', content: 'weather?' },
          result.message as ChatRequest['messages'][number],
          { role: 'tool', tool_call_id: calls[0]!.id, content: 'sunny' },
          { role: 'tool', tool_call_id: calls[1]!.id, content: 'rainy' },
        ],
      }),
      signal(),
    );
    expect(fake.requests.at(-1)!.toolResults).toEqual([
      { callId: 'get_weather', text: 'sunny' },
      { callId: 'get_weather', text: 'rainy' },
    ]);
  });

  it('sends an image as bare base64', async () => {
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
    expect(fake.requests.at(-1)).toMatchObject({
      userTexts: ['what is this?'],
      images: [{ mediaType: 'image/png', bytes: PNG.length }],
    });
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
    ['bad_request', 404],
    ['auth', 401],
  ] as const)('maps %s to its reason, whole and streamed, never quoting Ollama', async (failure, status) => {
    fake.script({ failure: failure as VendorFailure });
    for (const call of [provider.chat(chat(), ask(), signal()), streamed(ask())]) {
      const error = (await call.catch((e: unknown) => e)) as Record<string, unknown>;
      expect(error).toMatchObject({ kind: 'rejected', upstreamStatus: status, reason: failure });
      expect(error.message).not.toMatch(/busy|not found|context length|unauthorized|too many/);
    }
  });

  it('embeds texts in order with the count Ollama gives, and refuses token ids', async () => {
    const result = await provider.embed(registry.get('nomic')!, ['alpha beta', 'gamma'], signal());
    expect(result.vectors).toHaveLength(2);
    expect(result.vectors[0]).not.toEqual(result.vectors[1]);
    expect(result.inputTokens).toBe(3);
    expect(fake.requests.at(-1)).toMatchObject({
      model: 'nomic-embed-text',
      userTexts: ['alpha beta', 'gamma'],
    });
    await expect(provider.embed(registry.get('nomic')!, [[1, 2]], signal())).rejects.toMatchObject({
      code: 'unsupported_input',
    });
  });
});
