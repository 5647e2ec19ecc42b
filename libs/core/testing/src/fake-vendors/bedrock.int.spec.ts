// The fake Bedrock is faithful as far as the official client can tell: `@aws-sdk/client-bedrock-runtime` signs its
// requests (the fake checks the signature), and parses its Converse answers, event streams and exceptions.
import {
  BedrockRuntimeClient,
  ConverseCommand,
  ConverseStreamCommand,
  type ConverseStreamOutput,
} from '@aws-sdk/client-bedrock-runtime';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import {
  FAKE_AWS_ACCESS_KEY_ID,
  FAKE_AWS_REGION,
  startFakeBedrock,
  type FakeBedrockUpstream,
} from './bedrock.js';

describe('fake Bedrock, read by @aws-sdk/client-bedrock-runtime', () => {
  let fake: FakeBedrockUpstream;
  const client = (secretAccessKey = 'the-secret') =>
    new BedrockRuntimeClient({
      endpoint: fake.baseUrl,
      region: FAKE_AWS_REGION,
      credentials: { accessKeyId: FAKE_AWS_ACCESS_KEY_ID, secretAccessKey },
      maxAttempts: 1,
      // The client speaks HTTP/2 by default; Bedrock (and the fake) take HTTP/1.1 too.
      requestHandler: new NodeHttpHandler(),
    });
  const modelId = 'anthropic.claude-3-5-sonnet-20240620-v1:0';
  const toolConfig = {
    tools: [{ toolSpec: { name: 'weather', inputSchema: { json: { type: 'object' } } } }],
  };

  beforeAll(async () => {
    fake = await startFakeBedrock({ apiKey: 'the-secret' });
  });
  afterEach(() => {
    fake.script({});
    fake.failMidStream(undefined);
  });
  afterAll(() => fake.close());

  it('answers a signed Converse call with text, stop reason and usage with cache reads and writes', async () => {
    fake.script({ usage: { input: 100, output: 5, cacheRead: 60, cacheWrite: 30 } });
    const answer = await client().send(
      new ConverseCommand({
        modelId,
        system: [{ text: 'be brief' }, { cachePoint: { type: 'default' } }],
        messages: [{ role: 'user', content: [{ text: 'hello there' }] }],
        inferenceConfig: { maxTokens: 20, temperature: 0.5, stopSequences: ['END'] },
      }),
    );
    expect(answer.output?.message?.content).toEqual([{ text: 'Echo: hello there' }]);
    expect(answer.stopReason).toBe('end_turn');
    expect(answer.usage).toMatchObject({
      inputTokens: 10,
      cacheReadInputTokens: 60,
      cacheWriteInputTokens: 30,
    });
    expect(fake.requests.at(-1)).toMatchObject({
      model: modelId,
      system: 'be brief',
      userTexts: ['hello there'],
      maxTokens: 20,
      temperature: 0.5,
      stopSequences: ['END'],
      cacheMarks: 1,
    });
  });

  it('answers parallel tool uses, non-streamed and as an event stream the SDK decodes', async () => {
    fake.script({
      toolCalls: [
        { name: 'weather', arguments: { city: 'Oslo' } },
        { name: 'weather', arguments: { city: 'Rome' } },
      ],
    });
    const messages = [{ role: 'user' as const, content: [{ text: 'weather?' }] }];
    const answer = await client().send(new ConverseCommand({ modelId, messages, toolConfig }));
    expect(answer.stopReason).toBe('tool_use');
    expect(answer.output?.message?.content?.map((block) => block.toolUse?.input)).toEqual([
      { city: 'Oslo' },
      { city: 'Rome' },
    ]);
    const streamed = await client().send(new ConverseStreamCommand({ modelId, messages, toolConfig }));
    const events: ConverseStreamOutput[] = [];
    for await (const event of streamed.stream!) events.push(event);
    const inputs = new Map<number, string>();
    for (const event of events)
      if (event.contentBlockDelta?.delta?.toolUse)
        inputs.set(
          event.contentBlockDelta.contentBlockIndex!,
          (inputs.get(event.contentBlockDelta.contentBlockIndex!) ?? '') +
            event.contentBlockDelta.delta.toolUse.input,
        );
    expect([...inputs.values()].map((input) => JSON.parse(input) as unknown)).toEqual([
      { city: 'Oslo' },
      { city: 'Rome' },
    ]);
    expect(events.find((event) => event.contentBlockStart)?.contentBlockStart?.start?.toolUse?.name).toBe(
      'weather',
    );
    expect(events.find((event) => event.messageStop)?.messageStop?.stopReason).toBe('tool_use');
    expect(events.at(-1)?.metadata?.usage?.outputTokens).toBeGreaterThan(0);
  });

  it('streams text, and sends a mid-stream exception the SDK throws as its class', async () => {
    const streamed = await client().send(
      new ConverseStreamCommand({ modelId, messages: [{ role: 'user', content: [{ text: 'one two' }] }] }),
    );
    let text = '';
    for await (const event of streamed.stream!) text += event.contentBlockDelta?.delta?.text ?? '';
    expect(text).toBe('Echo: one two');
    fake.failMidStream('throttlingException');
    const failing = await client().send(
      new ConverseStreamCommand({ modelId, messages: [{ role: 'user', content: [{ text: 'x' }] }] }),
    );
    const drain = async () => {
      for await (const _event of failing.stream!);
    };
    await expect(drain()).rejects.toMatchObject({ name: 'ThrottlingException' });
  });

  it('refuses a wrong signature (403) and answers errors with their AWS types', async () => {
    await expect(
      client('wrong-secret').send(
        new ConverseCommand({ modelId, messages: [{ role: 'user', content: [{ text: 'x' }] }] }),
      ),
    ).rejects.toMatchObject({
      name: 'InvalidSignatureException',
      $metadata: { httpStatusCode: 403 },
    });
    for (const [failure, name, status] of [
      ['rate_limit', 'ThrottlingException', 429],
      ['overloaded', 'ServiceUnavailableException', 503],
      ['context_length', 'ValidationException', 400],
      ['auth', 'AccessDeniedException', 403],
    ] as const) {
      fake.script({ failure });
      await expect(
        client().send(
          new ConverseCommand({ modelId, messages: [{ role: 'user', content: [{ text: 'x' }] }] }),
        ),
      ).rejects.toMatchObject({
        name,
        $metadata: { httpStatusCode: status },
      });
    }
  });
});
