// Deployments, fallbacks and retries of the gateway, with the official openai SDK as the client (its own retries off)
// and fake upstreams that fail the way real ones do: a 500, a 429 with Retry-After, a connection reset, a hang past
// the timeout, a stream cut mid-way, a slow first byte, a 400. While one healthy deployment remains the client sees no
// error; every call is billed once (one usage event, priced as the model that answered, with every try in it); a
// deployment that keeps failing (or asked to be left alone) cools down; a stream moves only before its first byte.
import OpenAI from 'openai';
import { startFakeUpstream, type FakeUpstream } from '#testing/fake-openai-upstream';
import { ADMIN_KEY, client, CORE, startTestApi, writeModelsFile, type TestApi } from './support/api.js';
import { usageEventsOf } from './support/usage-events.js';

const failureOf = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: unknown) => error,
  );

describe('gateway routing: deployments, fallbacks, retries (e2e)', () => {
  let api: TestApi;
  let primary: FakeUpstream;
  let secondary: FakeUpstream;
  let key: { id: string; key: string };
  const sdk = () => new OpenAI({ baseURL: `${api.url}/api/compat/v1`, apiKey: key.key, maxRetries: 0 });
  const ask = (model: string) =>
    sdk().chat.completions.create({ model, messages: [{ role: 'user', content: 'Hello there' }] });

  /** A model key served by the primary (always tried first while healthy) and the secondary. */
  const routedModel = (name: string, provider = 'primary') =>
    `  - { key: ${name}, provider: ${provider}, modelId: fake-model, kind: chat, pricing: { input: 1, output: 2 }, deployments: [{ name: a, provider: ${provider}, weight: 1 }, { name: b, provider: secondary, weight: 0 }] }`;

  beforeAll(async () => {
    primary = await startFakeUpstream({ reply: 'from the primary' });
    secondary = await startFakeUpstream({ reply: 'from the secondary' });
    api = await startTestApi({
      ROUTER_BACKOFF_MS: '10',
      ROUTER_COOLDOWN_SECONDS: '60',
      MODELS_FILE: writeModelsFile([
        'providers:',
        `  primary: { baseUrl: '${primary.url}' }`,
        `  slow: { baseUrl: '${primary.url}', timeoutMs: 300 }`,
        `  secondary: { baseUrl: '${secondary.url}' }`,
        'models:',
        ...['on-500', 'on-429', 'on-reset', 'on-400', 'cooling', 'cut'].map((name) => routedModel(name)),
        ...['on-hang', 'slow-first'].map((name) => routedModel(name, 'slow')),
        '  - { key: with-fallback, provider: primary, modelId: fake-model, kind: chat, pricing: { input: 1, output: 2 }, fallbacks: [backup] }',
        '  - { key: backup, provider: secondary, modelId: fake-model, kind: chat, pricing: { input: 10, output: 20 } }',
        '  - { key: limited, provider: primary, modelId: fake-model, kind: chat, deployments: [{ name: a, weight: 1, rpm: 1 }, { name: b, provider: secondary, weight: 0 }] }',
        '  - { key: one-a-minute, provider: primary, modelId: fake-model, kind: chat, rpm: 1 }',
      ]),
    });
    const issued = await client(api.url).post<{ id: string; key: string }>(`${CORE}/api-keys`, {
      name: 'routing',
    });
    key = issued.body;
  });
  afterEach(() => {
    primary.reset();
    secondary.reset();
  });
  afterAll(async () => {
    await api?.close();
    await primary?.close();
    await secondary?.close();
  });

  const usageOf = (model: string, count: number) => usageEventsOf(api, key.id, model, count);

  it.each([
    ['on-500', { failWith: { status: 500 } }, '500'],
    ['on-reset', { reset: true }, 'unreachable'],
  ] as const)(
    '%s: the next deployment answers, the client sees no error, the call is billed once',
    async (model, fault, error) => {
      primary.set(fault);
      const answer = await ask(model);
      expect(answer.choices[0]!.message.content).toBe('from the secondary');
      const [call] = await usageOf(model, 1);
      expect(call).toMatchObject({ outcome: 'completed', servedBy: model });
      expect(call!.attempts).toEqual([
        expect.objectContaining({ deployment: `${model}/a`, outcome: 'failed', error }),
        expect.objectContaining({ deployment: `${model}/b`, outcome: 'completed' }),
      ]);
      expect(call!.costUsd).toBeGreaterThan(0);
    },
  );

  it('on a 429 with Retry-After the deployment cools down for that long: the next call skips it', async () => {
    primary.set({ failWith: { status: 429, headers: { 'retry-after': '30' } } });
    expect((await ask('on-429')).choices[0]!.message.content).toBe('from the secondary');
    primary.reset();
    expect((await ask('on-429')).choices[0]!.message.content).toBe('from the secondary');
    expect(primary.requests).toHaveLength(0);
    const calls = await usageOf('on-429', 2);
    expect(calls[1]!.attempts).toEqual([
      expect.objectContaining({ deployment: 'on-429/b', outcome: 'completed' }),
    ]);
    const health = await fetch(`${api.url}/health`).then(
      (response) => response.json() as Promise<Record<string, unknown>>,
    );
    expect(health.deployments).toEqual(
      expect.arrayContaining([expect.objectContaining({ deployment: 'on-429/a', state: 'cooling' })]),
    );
  });

  it('a deployment that fails ROUTER_FAILURES_TO_COOLDOWN times in a row cools down', async () => {
    primary.set({ failWith: { status: 503 } });
    for (let i = 0; i < 3; i++)
      expect((await ask('cooling')).choices[0]!.message.content).toBe('from the secondary');
    expect(primary.requests).toHaveLength(3);
    await ask('cooling');
    expect(primary.requests).toHaveLength(3);
  });

  it('a hang past the timeout and a slow first byte move to the next deployment, streamed too', async () => {
    primary.set({ hang: true });
    expect((await ask('on-hang')).choices[0]!.message.content).toBe('from the secondary');
    primary.set({ hang: false, latencyMs: 1_000 });
    const stream = await sdk().chat.completions.create({
      model: 'slow-first',
      messages: [{ role: 'user', content: 'Hello there' }],
      stream: true,
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('from the secondary');
  });

  it('a stream cut after its first byte reached the client fails there: it is not sent again elsewhere', async () => {
    primary.set({ cutAfterChunks: 3, chunkDelayMs: 20 });
    const stream = await sdk().chat.completions.create({
      model: 'cut',
      messages: [{ role: 'user', content: 'Hello there' }],
      stream: true,
    });
    let text = '';
    const failure = await failureOf(
      (async () => {
        for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
      })(),
    );
    expect(text).toMatch(/^from/);
    expect(text).not.toContain('secondary');
    expect(failure).not.toBeNull();
    expect(secondary.requests).toHaveLength(0);
  });

  it('a request the upstream refused (400) is not tried again', async () => {
    primary.set({ failWith: { status: 400 } });
    const failure = await failureOf(ask('on-400'));
    expect(failure).toBeInstanceOf(OpenAI.BadRequestError);
    expect(secondary.requests).toHaveLength(0);
  });

  it('falls back to another model key, priced as that model', async () => {
    primary.set({ failWith: { status: 500 } });
    expect((await ask('with-fallback')).choices[0]!.message.content).toBe('from the secondary');
    const [call] = await usageOf('with-fallback', 1);
    expect(call).toMatchObject({ servedBy: 'backup', outcome: 'completed' });
    expect(call!.attempts!.map((attempt) => [attempt.deployment, attempt.outcome])).toEqual([
      ['with-fallback', 'failed'],
      ['backup', 'completed'],
    ]);
    // Priced at the backup's rates: ten times the primary's.
    expect(call!.costUsd).toBeCloseTo((call!.inputTokens * 10 + call!.outputTokens * 20) / 1e6, 10);
  });

  it('a deployment that used its requests of the minute (rpm) is passed over; with none left the gateway answers 429', async () => {
    expect((await ask('limited')).choices[0]!.message.content).toBe('from the primary');
    expect((await ask('limited')).choices[0]!.message.content).toBe('from the secondary');
    expect(primary.requests).toHaveLength(1);
    expect((await ask('one-a-minute')).choices[0]!.message.content).toBe('from the primary');
    const refused = await failureOf(ask('one-a-minute'));
    expect(refused).toBeInstanceOf(OpenAI.RateLimitError);
    expect((refused as InstanceType<typeof OpenAI.RateLimitError>).code).toBe('deployment_limit_reached');
    const retryAfter = Number((refused as InstanceType<typeof OpenAI.APIError>).headers?.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(primary.requests).toHaveLength(2);
  });

  it("/metrics has each deployment's try latency by outcome, errors by kind, time to first token and tokens", async () => {
    primary.set({ failWith: { status: 500 } });
    const stream = await sdk().chat.completions.create({
      model: 'on-500',
      messages: [{ role: 'user', content: 'Hello there' }],
      stream: true,
    });
    for await (const _chunk of stream);
    await usageOf('on-500', 2);
    const metrics = await fetch(`${api.url}/metrics`, { headers: { 'x-api-key': ADMIN_KEY } }).then(
      (response) => response.text(),
    );
    expect(metrics).toMatch(
      /model_deployment_latency_seconds_count\{deployment="on-500\/a",outcome="failed"\} [1-9]/,
    );
    expect(metrics).toMatch(
      /model_deployment_latency_seconds_count\{deployment="on-500\/b",outcome="completed"\} [1-9]/,
    );
    expect(metrics).toMatch(/model_deployment_errors_total\{deployment="on-500\/a",kind="500"\} [1-9]/);
    expect(metrics).toMatch(/model_deployment_first_token_seconds_count\{deployment="on-500\/b"\} [1-9]/);
    expect(metrics).toMatch(
      /model_deployment_tokens_total\{deployment="on-500\/b",direction="output"\} [1-9]/,
    );
  });
});
