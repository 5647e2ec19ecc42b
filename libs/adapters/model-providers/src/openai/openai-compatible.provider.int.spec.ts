import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { startFakeUpstream, type FakeUpstream } from '#testing/fake-openai-upstream';
import { ModelRegistry } from '../model-registry.js';
import { UpstreamError } from '../provider.port.js';
import { OpenAiCompatibleProvider } from './openai-compatible.provider.js';

describe('OpenAiCompatibleProvider (against a fake upstream)', () => {
  let fake: FakeUpstream;
  let registry: ModelRegistry;
  let provider: OpenAiCompatibleProvider;
  const signal = () => new AbortController().signal;

  beforeAll(async () => {
    fake = await startFakeUpstream();
    registry = ModelRegistry.build(
      {
        // A generous timeout for the calls that must answer (a loaded machine is slow), and a short one only for
        // the model whose upstream hangs, where the timeout is what the test waits for.
        providers: {
          up: { baseUrl: fake.url, apiKeyEnv: 'UP_KEY', timeoutMs: 30_000 },
          hanging: { baseUrl: fake.url, apiKeyEnv: 'UP_KEY', timeoutMs: 300 },
        },
        models: [
          { key: 'chat', modelId: 'fake-model', provider: 'up', kind: 'chat', region: 'us-east-1' },
          { key: 'chat-short-timeout', modelId: 'fake-model', provider: 'hanging', kind: 'chat' },
          { key: 'embed', modelId: 'fake-embedding-model', provider: 'up', kind: 'embedding' },
          { key: 'tts', modelId: 'fake-tts', provider: 'up', kind: 'speech' },
          { key: 'stt', modelId: 'fake-stt', provider: 'up', kind: 'transcription' },
          { key: 'nokey', provider: 'other', baseUrl: fake.url, apiKeyEnv: 'MISSING_KEY', kind: 'chat' },
        ],
      },
      {
        hostingRegion: 'local',
        upstreamTimeoutMs: 1000,
        defaultChatModelOverride: undefined,
        secret: (name) => (name === 'UP_KEY' ? 'sk-upstream' : undefined),
      },
    );
    provider = new OpenAiCompatibleProvider(registry);
  });
  afterEach(() => fake.reset());
  afterAll(async () => {
    await fake.close();
  });

  it('passes speech through to /audio/speech and transcription to /audio/transcriptions', async () => {
    const spoken = await provider.speech(
      registry.get('tts')!,
      { text: 'hello there', voiceName: 'nova' },
      signal(),
    );
    expect(spoken.mimeType).toBe('audio/wav');
    expect(Buffer.from(spoken.audio).toString('latin1')).toContain('nova:hello there');
    expect(fake.requests.at(-1)).toMatchObject({
      path: '/v1/audio/speech',
      body: { model: 'fake-tts', input: 'hello there', voice: 'nova', response_format: 'wav' },
    });
    const heard = await provider.transcribe(
      registry.get('stt')!,
      { audio: spoken.audio, mimeType: 'audio/wav', prompt: 'names' },
      signal(),
    );
    expect(heard).toEqual({ text: 'heard by fake-stt (prompt: names)' });
    expect(fake.requests.at(-1)!.path).toBe('/v1/audio/transcriptions');
    expect(fake.requests.at(-1)!.headers.authorization).toBe('Bearer sk-upstream');
  });

  it('sends the upstream model id and the configured key, and maps the answer and usage', async () => {
    fake.set({
      usage: { prompt_tokens: 12, completion_tokens: 3, prompt_tokens_details: { cached_tokens: 4 } },
    });
    const result = await provider.chat(
      registry.get('chat')!,
      { messages: [{ role: 'user', content: 'hi there' }], temperature: 0.2 },
      signal(),
    );
    expect(result).toMatchObject({
      message: { role: 'assistant', content: 'Echo: hi there' },
      finishReason: 'stop',
      usage: { inputTokens: 12, cachedInputTokens: 4, outputTokens: 3 },
    });
    expect(fake.requests[0]).toMatchObject({ body: { model: 'fake-model', temperature: 0.2 } });
    expect(fake.requests[0]!.headers.authorization).toBe('Bearer sk-upstream');
  });

  it('sends frozen messages (a conversation history) as the same JSON, small and over 64 KB, with a content-length', async () => {
    const history = (count: number, size: number) =>
      Array.from({ length: count }, (_, i) =>
        Object.freeze({
          role: i % 2 ? ('assistant' as const) : ('user' as const),
          content: `${i} ü — "${'x'.repeat(size)}"`,
        }),
      );
    for (const messages of [history(5, 10), history(401, 400)]) {
      const sent: ChatCompletionMessageParam[] = [{ role: 'system', content: 'rules' }, ...messages];
      const result = await provider.chat(registry.get('chat')!, { messages: sent }, signal());
      expect(result.message.content).toBe(`Echo: ${messages.at(-1)!.content}`);
      const request = fake.requests.at(-1)!;
      expect(request.body).toMatchObject({ model: 'fake-model', messages: sent, stream: false });
      expect(Number(request.headers['content-length'])).toBe(Buffer.byteLength(JSON.stringify(request.body)));
      expect(request.headers['transfer-encoding']).toBeUndefined();
    }
    expect(fake.requests.at(-1)!.headers['content-length']).toMatch(/^\d{6}$/);
  });

  it('streams deltas and ends with usage', async () => {
    let text = '';
    let finish: string | null = null;
    let usage;
    for await (const piece of provider.chatStream(
      registry.get('chat')!,
      { messages: [{ role: 'user', content: 'one two three' }] },
      signal(),
    )) {
      text += piece.delta.content ?? '';
      finish = piece.finishReason ?? finish;
      usage = piece.usage ?? usage;
    }
    expect(text).toBe('Echo: one two three');
    expect(finish).toBe('stop');
    expect(usage).toMatchObject({ inputTokens: expect.any(Number) });
    expect(fake.requests[0]!.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it('embeds in order', async () => {
    const result = await provider.embed(registry.get('embed')!, ['a', 'b'], signal());
    expect(result.vectors).toHaveLength(2);
    expect(result.vectors[0]).toHaveLength(8);
  });

  it('maps upstream errors, timeouts and a missing key to UpstreamError without leaking the key', async () => {
    fake.set({ failWith: { status: 429 } });
    await expect(
      provider.chat(registry.get('chat')!, { messages: [{ role: 'user', content: 'x' }] }, signal()),
    ).rejects.toMatchObject({ kind: 'rejected', upstreamStatus: 429 });
    fake.set({ failWith: undefined, hang: true });
    const timedOut = provider.chat(
      registry.get('chat-short-timeout')!,
      { messages: [{ role: 'user', content: 'x' }] },
      signal(),
    );
    await expect(timedOut).rejects.toBeInstanceOf(UpstreamError);
    await expect(timedOut).rejects.toMatchObject({ kind: 'timeout' });
    fake.set({ hang: false });
    const missing = provider.chat(
      registry.get('nokey')!,
      { messages: [{ role: 'user', content: 'x' }] },
      signal(),
    );
    await expect(missing).rejects.toMatchObject({
      kind: 'unavailable',
      message: expect.stringContaining('MISSING_KEY'),
    });
    await expect(missing).rejects.not.toMatchObject({ message: expect.stringContaining('sk-upstream') });
  });

  it('aborts the upstream call when the caller goes away', async () => {
    fake.set({ latencyMs: 5000 });
    const controller = new AbortController();
    const call = provider.chat(
      registry.get('chat')!,
      { messages: [{ role: 'user', content: 'x' }] },
      controller.signal,
    );
    while (fake.inFlight === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();
    await expect(call).rejects.toBeDefined();
    while (fake.aborted === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(fake.aborted).toBe(1);
  });
});
