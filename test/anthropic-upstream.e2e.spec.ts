// A model of provider type `anthropic` behind the gateway: the official Anthropic SDK on our Messages route and the
// openai SDK on chat completions reach the fake Anthropic upstream in its own wire format, with `cache_control` marks
// carried through to it (and never to an OpenAI-compatible upstream), cache reads and writes reported to the client
// and priced in the usage event, and Anthropic's failures mapped into each client's error envelope.
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { startFakeAnthropic, type FakeAnthropicUpstream } from '#testing/fake-vendors/anthropic';
import { startFakeUpstream, type FakeUpstream } from '#testing/fake-openai-upstream';
import { client, CORE, startTestApi, writeModelsFile, type TestApi } from './support/api.js';
import { usageEventsOf } from './support/usage-events.js';

const UPSTREAM_KEY = 'sk-ant-fake-upstream-0123456789';
const mark = { type: 'ephemeral' } as const;
/** USD per million tokens: fresh input, cache reads, cache writes, output. */
const PRICING = { input: 3, cachedInput: 0.3, cacheWrite: 3.75, output: 15 };

describe('anthropic upstream behind the gateway (e2e)', () => {
  let api: TestApi;
  let fake: FakeAnthropicUpstream;
  let openAiUpstream: FakeUpstream;
  let key: { id: string; key: string };
  const anthropic = () => new Anthropic({ baseURL: `${api.url}/api/compat`, apiKey: key.key, maxRetries: 0 });
  const openai = () => new OpenAI({ baseURL: `${api.url}/api/compat/v1`, apiKey: key.key, maxRetries: 0 });

  beforeAll(async () => {
    fake = await startFakeAnthropic({ apiKey: UPSTREAM_KEY });
    openAiUpstream = await startFakeUpstream();
    const pricing = `{ input: ${PRICING.input}, cachedInput: ${PRICING.cachedInput}, cacheWrite: ${PRICING.cacheWrite}, output: ${PRICING.output} }`;
    api = await startTestApi({
      FAKE_ANTHROPIC_KEY: UPSTREAM_KEY,
      MODELS_FILE: writeModelsFile([
        'providers:',
        `  anthropic: { type: anthropic, baseUrl: '${fake.baseUrl}', apiKeyEnv: FAKE_ANTHROPIC_KEY }`,
        `  compatible: { baseUrl: '${openAiUpstream.url}' }`,
        'models:',
        `  - { key: claude, provider: anthropic, modelId: claude-fake-1, kind: chat, pricing: ${pricing} }`,
        '  - { key: gpt, provider: compatible, modelId: fake-model, kind: chat, pricing: { input: 1, output: 2 } }',
      ]),
    });
    key = (await client(api.url).post<{ id: string; key: string }>(`${CORE}/api-keys`, { name: 'anthropic' }))
      .body;
  });
  afterEach(() => {
    fake.script({});
    fake.failMidStream(undefined);
  });
  afterAll(async () => {
    await api?.close();
    await fake?.close();
    await openAiUpstream?.close();
  });

  const usageOf = (model: string, count: number) => usageEventsOf(api, key.id, model, count);

  it('Messages with cache_control: the marks reach Anthropic, cache usage comes back and is priced', async () => {
    fake.script({ usage: { input: 1000, output: 10, cacheRead: 600, cacheWrite: 300 } });
    const message = await anthropic().messages.create({
      model: 'claude',
      max_tokens: 100,
      system: [
        { type: 'text', text: 'You answer questions about the document.' },
        { type: 'text', text: 'A long document.', cache_control: mark },
      ],
      tools: [{ name: 'lookup', input_schema: { type: 'object' }, cache_control: mark }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Summarise it', cache_control: mark }] }],
    });
    expect(message.content).toEqual([{ type: 'text', text: 'Echo: Summarise it' }]);
    expect(message.usage).toMatchObject({
      input_tokens: 100,
      cache_read_input_tokens: 600,
      cache_creation_input_tokens: 300,
      output_tokens: 10,
    });
    expect(fake.requests.at(-1)).toMatchObject({
      model: 'claude-fake-1',
      system: 'You answer questions about the document.\nA long document.',
      tools: ['lookup'],
      maxTokens: 100,
      cacheMarks: 3,
      headers: { 'x-api-key': UPSTREAM_KEY, 'anthropic-version': '2023-06-01' },
    });
    const [call] = await usageOf('claude', 1);
    expect(call).toMatchObject({
      inputTokens: 1000,
      cachedInputTokens: 600,
      cacheWriteTokens: 300,
      outputTokens: 10,
    });
    const expected =
      (100 * PRICING.input + 600 * PRICING.cachedInput + 300 * PRICING.cacheWrite + 10 * PRICING.output) /
      1e6;
    expect(call!.costUsd).toBeCloseTo(expected, 9);
  });

  it('Messages streamed with parallel tool calls, read by the SDK', async () => {
    fake.script({
      toolCalls: [
        { name: 'weather', arguments: { city: 'Berlin' } },
        { name: 'weather', arguments: { city: 'Paris' } },
      ],
      usage: { input: 40, output: 12, cacheRead: 30 },
    });
    const final = await anthropic()
      .messages.stream({
        model: 'claude',
        max_tokens: 100,
        tools: [
          { name: 'weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } },
        ],
        messages: [{ role: 'user', content: 'Weather in Berlin and Paris?' }],
      })
      .finalMessage();
    expect(final.stop_reason).toBe('tool_use');
    expect(final.content.map((block) => block.type === 'tool_use' && block.input)).toEqual([
      { city: 'Berlin' },
      { city: 'Paris' },
    ]);
    expect(final.usage).toMatchObject({ input_tokens: 10, cache_read_input_tokens: 30, output_tokens: 12 });
    expect(fake.requests.at(-1)).toMatchObject({ stream: true, tools: ['weather'] });
  });

  it('chat completions with cache_control on content parts: kept for Anthropic, stripped for an OpenAI upstream', async () => {
    const messages = [
      { role: 'system', content: [{ type: 'text', text: 'A long document.', cache_control: mark }] },
      { role: 'user', content: 'Summarise it' },
    ] as unknown as OpenAI.ChatCompletionMessageParam[];
    fake.script({ usage: { input: 50, output: 5, cacheWrite: 40 } });
    const answer = await openai().chat.completions.create({ model: 'claude', messages });
    expect(answer.choices[0]!.message.content).toBe('Echo: Summarise it');
    expect(answer.usage).toMatchObject({ prompt_tokens: 50, completion_tokens: 5 });
    expect(fake.requests.at(-1)).toMatchObject({ system: 'A long document.', cacheMarks: 1 });

    await openai().chat.completions.create({ model: 'gpt', messages });
    expect(openAiUpstream.requests.at(-1)!.rawBody).not.toContain('cache_control');
    expect(openAiUpstream.requests.at(-1)!.body).toMatchObject({
      messages: [
        { role: 'system', content: [{ type: 'text', text: 'A long document.' }] },
        expect.anything(),
      ],
    });
  });

  it("maps Anthropic's failures into the client's envelope: 529 overloaded, a prompt too long, a rate limit", async () => {
    const ask = () =>
      anthropic()
        .messages.create({ model: 'claude', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] })
        .catch((error: unknown) => error as InstanceType<typeof Anthropic.APIError>);
    fake.script({ failure: 'overloaded' });
    expect(await ask()).toMatchObject({ status: 503, error: { error: { type: 'overloaded_error' } } });
    fake.script({ failure: 'context_length' });
    expect(await ask()).toMatchObject({ status: 400, error: { error: { type: 'invalid_request_error' } } });
    fake.script({ failure: 'rate_limit', retryAfterSeconds: 3 });
    expect(await ask()).toMatchObject({ status: 429, error: { error: { type: 'rate_limit_error' } } });
    const failed = await openai()
      .chat.completions.create({ model: 'claude', messages: [{ role: 'user', content: 'hi' }] })
      .catch((error: unknown) => error as InstanceType<typeof OpenAI.APIError>);
    expect(failed).toMatchObject({ status: 429 });
  });
});
