import {
  FAKE_AWS_ACCESS_KEY_ID,
  startFakeBedrock,
  type FakeBedrockUpstream,
} from '#testing/fake-vendors/bedrock';
import { ModelRegistry } from '../model-registry.js';
import type { ChatDelta, ChatRequest } from '../provider.port.js';
import { BedrockProvider } from './bedrock.provider.js';

const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const SECRET = 'bedrock-secret-access-key';

describe('BedrockProvider (against a fake Bedrock that checks signatures)', () => {
  let fake: FakeBedrockUpstream;
  let registry: ModelRegistry;
  let provider: BedrockProvider;
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
  const build = (secrets: Record<string, string>) =>
    ModelRegistry.build(
      {
        providers: {
          aws: { type: 'bedrock', baseUrl: fake.baseUrl, awsRegion: 'eu-central-1' },
          awskey: { type: 'bedrock', baseUrl: fake.baseUrl, awsRegion: 'eu-central-1', apiKeyEnv: 'BR_KEY' },
        },
        models: [
          {
            key: 'claude',
            modelId: 'anthropic.claude-3-5-sonnet-20240620-v1:0',
            provider: 'aws',
            kind: 'chat',
          },
          { key: 'claude-key', modelId: 'anthropic.claude-3-haiku-v1:0', provider: 'awskey', kind: 'chat' },
          { key: 'titan', modelId: 'amazon.titan-embed-text-v2:0', provider: 'aws', kind: 'embedding' },
        ],
      },
      {
        hostingRegion: 'local',
        upstreamTimeoutMs: 30_000,
        defaultChatModelOverride: undefined,
        secret: (name) => secrets[name],
      },
    );

  beforeAll(async () => {
    fake = await startFakeBedrock({ apiKey: 'bedrock-api-key', secretAccessKey: SECRET });
    registry = build({
      AWS_ACCESS_KEY_ID: FAKE_AWS_ACCESS_KEY_ID,
      AWS_SECRET_ACCESS_KEY: SECRET,
      BR_KEY: 'bedrock-api-key',
    });
    provider = new BedrockProvider(registry);
  });
  afterEach(() => {
    fake.script({});
    fake.failMidStream(undefined);
  });
  afterAll(async () => {
    await provider.close();
    await fake.close();
  });

  it('sends a signed Converse call: system, image, settings; answers text with usage', async () => {
    fake.script({ usage: { input: 100, output: 4, cacheRead: 60, cacheWrite: 30 } });
    const result = await provider.chat(
      registry.get('claude')!,
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
        stop: 'END',
      },
      signal(),
    );
    expect(result).toMatchObject({
      message: { role: 'assistant', content: 'Echo: what is this?' },
      finishReason: 'stop',
      usage: { inputTokens: 100, cachedInputTokens: 60, cacheWriteTokens: 30, outputTokens: 4 },
    });
    expect(fake.requests.at(-1)).toMatchObject({
      model: 'anthropic.claude-3-5-sonnet-20240620-v1:0',
      system: 'be brief',
      images: [{ mediaType: 'image/png', bytes: PNG.length }],
      maxTokens: 64,
      temperature: 0.2,
      stopSequences: ['END'],
    });
    expect(fake.requests.at(-1)!.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIAFAKEBEDROCK00001\/\d{8}\/eu-central-1\/bedrock\/aws4_request/,
    );
  });

  it('uses a Bedrock API key (Bearer) when the upstream names one', async () => {
    await provider.chat(registry.get('claude-key')!, ask('hi'), signal());
    expect(fake.requests.at(-1)!.headers.authorization).toBe('Bearer bedrock-api-key');
  });

  it('answers parallel tool calls and reads tool results back, streamed and not', async () => {
    fake.script({
      toolCalls: [
        { name: 'weather', arguments: { city: 'Oslo' } },
        { name: 'time', arguments: { zone: 'CET' } },
      ],
    });
    const tools = ['weather', 'time'].map((name) => ({
      type: 'function' as const,
      function: { name, parameters: { type: 'object' } },
    }));
    const whole = await provider.chat(registry.get('claude')!, ask('go', { tools }), signal());
    expect(whole.finishReason).toBe('tool_calls');
    expect(
      whole.message.tool_calls?.map(
        (call) => call.type === 'function' && JSON.parse(call.function.arguments),
      ),
    ).toEqual([{ city: 'Oslo' }, { zone: 'CET' }]);
    const streamed = await collect(
      provider.chatStream(registry.get('claude')!, ask('go', { tools }), signal()),
    );
    const args = new Map<number, string>();
    for (const call of streamed.flatMap((delta) => delta.delta.tool_calls ?? []))
      args.set(call.index, (args.get(call.index) ?? '') + (call.function?.arguments ?? ''));
    expect([...args.values()].map((text) => JSON.parse(text) as unknown)).toEqual([
      { city: 'Oslo' },
      { zone: 'CET' },
    ]);
    expect(streamed.find((delta) => delta.finishReason)?.finishReason).toBe('tool_calls');
    fake.script({});
    const [first, second] = whole.message.tool_calls!;
    await provider.chat(
      registry.get('claude')!,
      {
        messages: [
          { role: 'user', content: 'go' },
          whole.message,
          { role: 'tool', tool_call_id: first!.id, content: 'sunny' },
          { role: 'tool', tool_call_id: second!.id, content: '12:00' },
        ],
        tools,
      },
      signal(),
    );
    expect(fake.requests.at(-1)).toMatchObject({
      tools: ['weather', 'time'],
      toolResults: [
        { callId: first!.id, text: 'sunny' },
        { callId: second!.id, text: '12:00' },
      ],
    });
  });

  it('streams text with the stop reason and usage; tells length apart', async () => {
    fake.script({ usage: { input: 50, output: 3, cacheRead: 20 } });
    const streamed = await collect(
      provider.chatStream(registry.get('claude')!, ask('one two three'), signal()),
    );
    expect(streamed.map((delta) => delta.delta.content ?? '').join('')).toBe('Echo: one two three');
    expect(streamed.find((delta) => delta.finishReason)?.finishReason).toBe('stop');
    expect(streamed.at(-1)!.usage).toEqual({ inputTokens: 50, cachedInputTokens: 20, outputTokens: 3 });
    fake.script({ stop: 'length' });
    expect((await provider.chat(registry.get('claude')!, ask('x'), signal())).finishReason).toBe('length');
  });

  it.each([
    ['rate_limit', 429],
    ['overloaded', 503],
    ['context_length', 400],
    ['bad_request', 400],
    ['auth', 403],
  ] as const)('maps a %s failure to an UpstreamError (%i)', async (failure, status) => {
    fake.script({ failure });
    await expect(provider.chat(registry.get('claude')!, ask('x'), signal())).rejects.toMatchObject({
      kind: 'rejected',
      upstreamStatus: status,
      reason: failure,
    });
  });

  it.each([
    ['throttlingException', 429, 'rate_limit'],
    ['serviceUnavailableException', 503, 'overloaded'],
    ['validationException', 400, 'bad_request'],
  ] as const)('maps a %s mid-stream to an UpstreamError (%i, %s)', async (type, status, reason) => {
    fake.failMidStream(type);
    await expect(
      collect(provider.chatStream(registry.get('claude')!, ask('x'), signal())),
    ).rejects.toMatchObject({
      kind: 'rejected',
      upstreamStatus: status,
      reason,
    });
  });

  it('is refused (auth) when the secret is wrong, and unavailable with the variables unset', async () => {
    const wrong = new BedrockProvider(
      build({ AWS_ACCESS_KEY_ID: FAKE_AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY: 'not-the-secret' }),
    );
    await expect(wrong.chat(registry.get('claude')!, ask('x'), signal())).rejects.toMatchObject({
      upstreamStatus: 403,
      reason: 'auth',
    });
    const unset = build({});
    expect(unset.missingKeys).toEqual(
      expect.arrayContaining([
        { model: 'claude', variable: 'AWS_ACCESS_KEY_ID' },
        { model: 'claude-key', variable: 'BR_KEY' },
      ]),
    );
    const failed = new BedrockProvider(unset).chat(unset.get('claude')!, ask('x'), signal());
    await expect(failed).rejects.toMatchObject({
      kind: 'unavailable',
      message: expect.stringContaining('AWS_SECRET_ACCESS_KEY') as unknown,
    });
    await wrong.close();
  });

  it('embeds each text with Titan, in order, summing the tokens', async () => {
    const texts = ['a', 'bb bb', 'ccc', 'dddd dddd dddd', 'e', 'ff'];
    const embedded = await provider.embed(registry.get('titan')!, texts, signal());
    expect(embedded.vectors).toHaveLength(6);
    expect(embedded.vectors[1]).toEqual(
      Array.from({ length: 8 }, (_, at) => ((texts[1]!.length + at) % 5) / 5),
    );
    expect(embedded.inputTokens).toBe(9);
    fake.script({ failure: 'rate_limit' });
    await expect(provider.embed(registry.get('titan')!, texts, signal())).rejects.toMatchObject({
      reason: 'rate_limit',
    });
  });
});
