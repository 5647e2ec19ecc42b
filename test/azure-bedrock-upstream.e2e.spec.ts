// Azure OpenAI and Amazon Bedrock as upstreams of the gateway, with the official openai SDK as the client: a models
// file naming both provider types serves chat completions (text, a stream with parallel tool calls) and embeddings
// through the fakes of each vendor's wire (Azure's deployment paths and api-key; Bedrock's SigV4-signed Converse,
// event-stream frames and Titan embeddings), and each vendor's refusals reach the client as its protocol says them.
import OpenAI from 'openai';
import { EVENT_STORE, type EventStore } from '#event-store';
import { usageStreamId, utcDay, type ModelCall } from '#usage';
import { recordedCalls } from './support/usage-events.js';
import { waitUntil } from '#testing/fixtures';
import { startFakeAzure, type FakeAzureUpstream } from '#testing/fake-vendors/azure';
import {
  FAKE_AWS_ACCESS_KEY_ID,
  FAKE_AWS_SECRET_ACCESS_KEY,
  startFakeBedrock,
  type FakeBedrockUpstream,
} from '#testing/fake-vendors/bedrock';
import { client, CORE, startTestApi, writeModelsFile, type TestApi } from './support/api.js';

const AZURE_KEY = 'azure-upstream-key-0123';

describe('gateway with Azure OpenAI and Bedrock upstreams (e2e)', () => {
  let api: TestApi;
  let azure: FakeAzureUpstream;
  let bedrock: FakeBedrockUpstream;
  let key: string;
  let keyId: string;
  const sdk = () => new OpenAI({ baseURL: `${api.url}/api/compat/v1`, apiKey: key, maxRetries: 0 });
  const tools = ['weather', 'time'].map((name) => ({
    type: 'function' as const,
    function: { name, parameters: { type: 'object', properties: { at: { type: 'string' } } } },
  }));

  beforeAll(async () => {
    azure = await startFakeAzure({ apiKey: AZURE_KEY });
    bedrock = await startFakeBedrock({
      apiKey: 'unused-api-key',
      secretAccessKey: FAKE_AWS_SECRET_ACCESS_KEY,
    });
    api = await startTestApi({
      AZURE_OPENAI_KEY: AZURE_KEY,
      AWS_ACCESS_KEY_ID: FAKE_AWS_ACCESS_KEY_ID,
      AWS_SECRET_ACCESS_KEY: FAKE_AWS_SECRET_ACCESS_KEY,
      MODELS_FILE: writeModelsFile([
        'providers:',
        `  azure: { type: azure, baseUrl: '${azure.baseUrl}', apiVersion: '2024-10-21', apiKeyEnv: AZURE_OPENAI_KEY }`,
        `  bedrock: { type: bedrock, baseUrl: '${bedrock.baseUrl}', awsRegion: eu-central-1 }`,
        'models:',
        '  - { key: azure-gpt, provider: azure, modelId: gpt4o-prod, kind: chat, pricing: { input: 2.5, output: 10 } }',
        '  - { key: azure-embed, provider: azure, modelId: embed-prod, kind: embedding, pricing: { input: 0.02, output: 0 } }',
        "  - { key: claude, provider: bedrock, modelId: 'anthropic.claude-3-5-sonnet-20240620-v1:0', kind: chat, pricing: { input: 3, output: 15 } }",
        "  - { key: titan, provider: bedrock, modelId: 'amazon.titan-embed-text-v2:0', kind: embedding, pricing: { input: 0.02, output: 0 } }",
      ]),
    });
    const issued = await client(api.url).post<{ id: string; key: string }>(`${CORE}/api-keys`, {
      name: 'vendors',
    });
    key = issued.body.key;
    keyId = issued.body.id;
  });
  afterEach(() => {
    azure.script({});
    azure.contentFilter(undefined);
    bedrock.script({});
  });
  afterAll(async () => {
    await api?.close();
    await azure?.close();
    await bedrock?.close();
  });

  it.each(['azure-gpt', 'claude'])('%s answers a chat completion with usage', async (model) => {
    const answer = await sdk().chat.completions.create({
      model,
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'Hello there' },
      ],
    });
    expect(answer.choices[0]!.message.content).toBe('Echo: Hello there');
    expect(answer.choices[0]!.finish_reason).toBe('stop');
    expect(answer.usage?.prompt_tokens).toBeGreaterThan(0);
    const fake = model === 'claude' ? bedrock : azure;
    expect(fake.requests.at(-1)).toMatchObject({ system: 'be brief', userTexts: ['Hello there'] });
  });

  it.each(['azure-gpt', 'claude'])('%s streams parallel tool calls the SDK assembles', async (model) => {
    (model === 'claude' ? bedrock : azure).script({
      toolCalls: [
        { name: 'weather', arguments: { at: 'Oslo' } },
        { name: 'time', arguments: { at: 'Rome' } },
      ],
    });
    const stream = sdk().chat.completions.stream({
      model,
      messages: [{ role: 'user', content: 'Weather in Oslo, time in Rome?' }],
      tools,
      stream_options: { include_usage: true },
    });
    const final = await stream.finalChatCompletion();
    expect(final.choices[0]!.finish_reason).toBe('tool_calls');
    const calls = final.choices[0]!.message.tool_calls!.map((call) =>
      call.type === 'function' ? [call.function.name, JSON.parse(call.function.arguments) as unknown] : [],
    );
    expect(calls).toEqual([
      ['weather', { at: 'Oslo' }],
      ['time', { at: 'Rome' }],
    ]);
    expect(final.usage?.completion_tokens).toBeGreaterThan(0);
  });

  it('counts and prices a Bedrock answer with cache reads and writes in the prompt tokens', async () => {
    bedrock.script({ usage: { input: 1000, output: 10, cacheRead: 600, cacheWrite: 300 } });
    const answer = await sdk().chat.completions.create({
      model: 'claude',
      messages: [{ role: 'user', content: 'Hello again' }],
    });
    expect(answer.usage).toMatchObject({ prompt_tokens: 1000, completion_tokens: 10 });
    expect(answer.usage?.prompt_tokens_details?.cached_tokens).toBe(600);
    // 100 fresh input tokens at $3/M, 600 read at 10% of it, 300 written at 125% of it, 10 output at $15/M.
    const store = api.app.get<EventStore>(EVENT_STORE);
    let call: ModelCall | undefined;
    await waitUntil(async () => {
      const events = await store.readStream(usageStreamId(keyId, utcDay(new Date())));
      call = recordedCalls(events).find((data) => data.inputTokens === 1000);
      return call !== undefined;
    }, 10_000);
    expect(call).toMatchObject({ cachedInputTokens: 600, cacheWriteTokens: 300, outputTokens: 10 });
    expect(call!.costUsd).toBeCloseTo((100 * 3 + 600 * 0.3 + 300 * 3.75 + 10 * 15) / 1e6, 9);
  });

  it.each(['azure-embed', 'titan'])('%s embeds texts in order', async (model) => {
    const embedded = await sdk().embeddings.create({ model, input: ['one', 'two words', 'three'] });
    expect(embedded.data.map((item) => item.index)).toEqual([0, 1, 2]);
    expect(embedded.data.every((item) => item.embedding.length === 8)).toBe(true);
    expect(embedded.usage.prompt_tokens).toBeGreaterThan(0);
  });

  it("maps the vendors' refusals into the client's envelope", async () => {
    const failure = (model: string) =>
      sdk()
        .chat.completions.create({ model, messages: [{ role: 'user', content: 'x' }] })
        .then(
          () => null,
          (error: unknown) => error,
        );
    bedrock.script({ failure: 'rate_limit' });
    expect(await failure('claude')).toMatchObject({ status: 429, code: 'upstream_rate_limited' });
    bedrock.script({ failure: 'context_length' });
    expect(await failure('claude')).toMatchObject({ status: 400, code: 'context_length_exceeded' });
    azure.contentFilter('prompt');
    const filtered = await failure('azure-gpt');
    expect(filtered).toMatchObject({ status: 400, code: 'upstream_rejected_request' });
    expect((filtered as Error).message).toContain('content filter');
    expect((filtered as Error).message).not.toContain('management policy');
  });
});
