// The fake Azure OpenAI is faithful as far as the official client can tell: the `openai` SDK's AzureOpenAI client
// reaches it at the deployment paths with its api-version and api-key, and parses its answers, streams and errors.
import { AzureOpenAI, APIError } from 'openai';
import { startFakeAzure, type FakeAzureUpstream } from './azure.js';

describe('fake Azure OpenAI, read by the openai SDK (AzureOpenAI)', () => {
  let fake: FakeAzureUpstream;
  const client = (apiKey = 'azure-key') =>
    new AzureOpenAI({ endpoint: fake.baseUrl, apiKey, apiVersion: '2024-10-21', maxRetries: 0 });
  const weather = {
    type: 'function' as const,
    function: { name: 'weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
  };

  beforeAll(async () => {
    fake = await startFakeAzure({ apiKey: 'azure-key' });
  });
  afterEach(() => {
    fake.script({});
    fake.contentFilter(undefined);
  });
  afterAll(() => fake.close());

  it('answers chat at the deployment path with usage, and reads the request in neutral terms', async () => {
    const answer = await client().chat.completions.create({
      model: 'gpt4o-prod',
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'hello there' },
      ],
      max_tokens: 50,
      temperature: 0.3,
    });
    expect(answer.choices[0]!.message.content).toBe('Echo: hello there');
    expect(answer.usage).toMatchObject({ prompt_tokens: 10 });
    expect(fake.requests.at(-1)).toMatchObject({
      model: 'gpt4o-prod',
      system: 'be brief',
      userTexts: ['hello there'],
      maxTokens: 50,
      temperature: 0.3,
      headers: expect.objectContaining({ 'api-key': 'azure-key' }) as unknown,
    });
  });

  it('streams parallel tool calls the SDK assembles, then usage', async () => {
    fake.script({
      toolCalls: [
        { name: 'weather', arguments: { city: 'Oslo' } },
        { name: 'weather', arguments: { city: 'Rome' } },
      ],
    });
    const stream = client().chat.completions.stream({
      model: 'gpt4o-prod',
      messages: [{ role: 'user', content: 'weather?' }],
      tools: [weather],
      stream_options: { include_usage: true },
    });
    const final = await stream.finalChatCompletion();
    expect(final.choices[0]!.finish_reason).toBe('tool_calls');
    expect(
      final.choices[0]!.message.tool_calls!.map(
        (call) => call.type === 'function' && JSON.parse(call.function.arguments),
      ),
    ).toEqual([{ city: 'Oslo' }, { city: 'Rome' }]);
    expect(final.usage?.prompt_tokens).toBe(10);
    expect(fake.requests.at(-1)).toMatchObject({ stream: true, tools: ['weather'] });
  });

  it('answers embeddings, and refuses a wrong key, rate limits and filtered prompts as Azure does', async () => {
    const embedded = await client().embeddings.create({ model: 'embed-prod', input: ['a', 'bb'] });
    expect(embedded.data.map((item) => item.embedding.length)).toEqual([8, 8]);
    await expect(
      client('wrong').chat.completions.create({ model: 'd', messages: [{ role: 'user', content: 'x' }] }),
    ).rejects.toMatchObject({ status: 401 });
    fake.script({ failure: 'rate_limit', retryAfterSeconds: 3 });
    const limited = await client()
      .chat.completions.create({ model: 'd', messages: [{ role: 'user', content: 'x' }] })
      .catch((error: unknown) => error);
    expect(limited).toBeInstanceOf(APIError);
    expect((limited as APIError).status).toBe(429);
    expect((limited as APIError).headers?.get('retry-after-ms')).toBe('3000');
    fake.script({});
    fake.contentFilter('prompt');
    await expect(
      client().chat.completions.create({ model: 'd', messages: [{ role: 'user', content: 'x' }] }),
    ).rejects.toMatchObject({ status: 400, code: 'content_filter' });
  });
});
