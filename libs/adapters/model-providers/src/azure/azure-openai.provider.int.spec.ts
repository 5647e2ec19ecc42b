import { startFakeAzure, type FakeAzureUpstream } from '#testing/fake-vendors/azure';
import { ModelRegistry } from '../model-registry.js';
import type { ChatDelta, ChatRequest } from '../provider.port.js';
import { AzureOpenAiProvider } from './azure-openai.provider.js';

const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

describe('AzureOpenAiProvider (against a fake Azure OpenAI)', () => {
  let fake: FakeAzureUpstream;
  let registry: ModelRegistry;
  let provider: AzureOpenAiProvider;
  const signal = () => new AbortController().signal;
  const ask = (text: string, extra: Partial<ChatRequest> = {}): ChatRequest => ({
    messages: [{ role: 'user', content: text }],
    ...extra,
  });
  const collect = async (deltas: AsyncIterable<ChatDelta>) => {
    const seen: ChatDelta[] = [];
    for await (const delta of deltas) seen.push(delta);
    return seen;
  };

  beforeAll(async () => {
    fake = await startFakeAzure({ apiKey: 'azure-secret-key' });
    registry = ModelRegistry.build(
      {
        providers: {
          az: { type: 'azure', baseUrl: fake.baseUrl, apiVersion: '2024-10-21', apiKeyEnv: 'AZ_KEY' },
        },
        models: [
          { key: 'gpt', modelId: 'gpt4o-prod', provider: 'az', kind: 'chat' },
          { key: 'embed', modelId: 'embed-prod', provider: 'az', kind: 'embedding' },
          { key: 'draw', modelId: 'dalle-prod', provider: 'az', kind: 'image' },
          { key: 'tts', modelId: 'tts-prod', provider: 'az', kind: 'speech' },
          { key: 'stt', modelId: 'whisper-prod', provider: 'az', kind: 'transcription' },
        ],
      },
      {
        hostingRegion: 'local',
        upstreamTimeoutMs: 30_000,
        defaultChatModelOverride: undefined,
        secret: (name) => (name === 'AZ_KEY' ? 'azure-secret-key' : undefined),
      },
    );
    provider = new AzureOpenAiProvider(registry);
  });
  afterEach(() => {
    fake.script({});
    fake.contentFilter(undefined);
  });
  afterAll(async () => {
    await provider.close();
    await fake.close();
  });

  it('calls the deployment with its api-version and api-key: system, image, settings, text and usage', async () => {
    fake.script({ usage: { input: 40, output: 3, cacheRead: 32 } });
    const result = await provider.chat(
      registry.get('gpt')!,
      {
        messages: [
          { role: 'system', content: 'be brief' },
          {
            role: 'user',
            content: [
              { type: 'text', text: 'what is this?' },
              { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
            ],
          },
        ],
        max_tokens: 64,
        temperature: 0.2,
        stop: ['END'],
      },
      signal(),
    );
    expect(result).toMatchObject({
      message: { role: 'assistant', content: 'Echo: what is this?' },
      finishReason: 'stop',
      usage: { inputTokens: 40, cachedInputTokens: 32, outputTokens: 3 },
    });
    expect(fake.requests.at(-1)).toMatchObject({
      model: 'gpt4o-prod',
      system: 'be brief',
      images: [{ mediaType: 'image/png', bytes: PNG.length }],
      maxTokens: 64,
      temperature: 0.2,
      stopSequences: ['END'],
    });
    expect(fake.requests.at(-1)!.headers['api-key']).toBe('azure-secret-key');
    expect(fake.requests.at(-1)!.headers.authorization).toBeUndefined();
  });

  it('streams text and parallel tool calls, with the finish reason and usage', async () => {
    const text = await collect(provider.chatStream(registry.get('gpt')!, ask('one two three'), signal()));
    expect(text.map((delta) => delta.delta.content ?? '').join('')).toBe('Echo: one two three');
    expect(text.find((delta) => delta.finishReason)?.finishReason).toBe('stop');
    expect(text.at(-1)!.usage).toMatchObject({ inputTokens: 10 });
    fake.script({
      toolCalls: [
        { name: 'weather', arguments: { city: 'Oslo' } },
        { name: 'time', arguments: { zone: 'CET' } },
      ],
    });
    const tools = [
      { type: 'function' as const, function: { name: 'weather', parameters: { type: 'object' } } },
      { type: 'function' as const, function: { name: 'time', parameters: { type: 'object' } } },
    ];
    const called = await collect(provider.chatStream(registry.get('gpt')!, ask('go', { tools }), signal()));
    const calls = called.flatMap((delta) => delta.delta.tool_calls ?? []);
    expect(calls.filter((call) => call.id).map((call) => call.function?.name)).toEqual(['weather', 'time']);
    expect(called.find((delta) => delta.finishReason)?.finishReason).toBe('tool_calls');
    const whole = await provider.chat(registry.get('gpt')!, ask('go', { tools }), signal());
    expect(whole.finishReason).toBe('tool_calls');
    expect(whole.message.tool_calls).toHaveLength(2);
    expect(fake.requests.at(-1)!.tools).toEqual(['weather', 'time']);
  });

  it('tells the stop reasons: length, and an answer cut by the content filter', async () => {
    fake.script({ stop: 'length' });
    expect((await provider.chat(registry.get('gpt')!, ask('x'), signal())).finishReason).toBe('length');
    fake.script({});
    fake.contentFilter('answer');
    expect((await provider.chat(registry.get('gpt')!, ask('x'), signal())).finishReason).toBe(
      'content_filter',
    );
    const streamed = await collect(provider.chatStream(registry.get('gpt')!, ask('x'), signal()));
    expect(streamed.find((delta) => delta.finishReason)?.finishReason).toBe('content_filter');
  });

  it.each([
    ['rate_limit', 429, 'rate_limit'],
    ['overloaded', 503, 'overloaded'],
    ['context_length', 400, 'context_length'],
    ['bad_request', 400, 'bad_request'],
    ['auth', 401, 'auth'],
  ] as const)('maps a %s failure to an UpstreamError (%i, %s)', async (failure, status, reason) => {
    fake.script({ failure, retryAfterSeconds: 2.5 });
    const failed = provider.chat(registry.get('gpt')!, ask('x'), signal());
    await expect(failed).rejects.toMatchObject({ kind: 'rejected', upstreamStatus: status, reason });
    if (failure === 'rate_limit') await expect(failed).rejects.toMatchObject({ retryAfterMs: 2500 });
  });

  it('tells a prompt refused by the content filter as a bad request that says so, never quoting Azure', async () => {
    fake.contentFilter('prompt');
    const failed = provider.chat(registry.get('gpt')!, ask('x'), signal());
    await expect(failed).rejects.toMatchObject({
      upstreamStatus: 400,
      reason: 'bad_request',
      detail: expect.stringContaining('content filter') as unknown,
    });
    await expect(failed).rejects.not.toMatchObject({ message: expect.stringContaining('management policy') });
  });

  it('embeds, draws, speaks and transcribes at the deployments through the AzureOpenAI client', async () => {
    const embedded = await provider.embed(registry.get('embed')!, ['a', 'bb', 'ccc'], signal());
    expect(embedded.vectors).toHaveLength(3);
    expect(embedded.vectors[0]).toHaveLength(8);
    expect(embedded.inputTokens).toBe(9);
    const image = await provider.image(
      registry.get('draw')!,
      { prompt: 'a dot', aspectRatio: '1:1', resolution: '1K' },
      signal(),
    );
    expect(image).toMatchObject({ mimeType: 'image/png', width: 1, height: 1 });
    const spoken = await provider.speech(registry.get('tts')!, { text: 'hi', voiceName: 'nova' }, signal());
    expect(Buffer.from(spoken.audio).toString('latin1')).toContain('nova:hi');
    const heard = await provider.transcribe(
      registry.get('stt')!,
      { audio: spoken.audio, mimeType: 'audio/wav' },
      signal(),
    );
    expect(heard.text).toBe('heard by whisper-prod');
  });
});
