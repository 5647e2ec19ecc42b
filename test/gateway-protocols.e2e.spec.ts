// The compatible gateway's Responses and Anthropic Messages routes through the official clients, as their users call
// them: the `openai` SDK's Responses API, the Vercel AI SDK (its default OpenAI provider speaks Responses; its
// Anthropic provider with a base URL), LangChain's ChatOpenAI with `useResponsesApi`, and `@anthropic-ai/sdk`. Each
// against the offline model and against the fake upstream, and each with 401, 404 and 429 in the client's own error
// class: the three routes share one policy path, so these are the same checks chat completions passes.
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { APICallError, generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai';
import { createOpenAI } from '@ai-sdk/openai';
import { createAnthropic } from '@ai-sdk/anthropic';
import { ChatOpenAI } from '@langchain/openai';
import { EVENT_STORE, type EventStore } from '#event-store';
import { startFakeUpstream, type FakeUpstream } from '#testing/fake-openai-upstream';
import { usageStreamId, utcDay, type ModelCall } from '#usage';
import { recordedCalls as callsIn } from './support/usage-events.js';
import { ADMIN_KEY, client, CORE, startTestApi, type TestApi, writeModelsFile } from './support/api.js';

const UPSTREAM_KEY = 'sk-fake-upstream-secret-0123456789';
const WEATHER_PARAMETERS: {
  type: 'object';
  properties: Record<string, { type: 'string' }>;
  required: string[];
} = {
  type: 'object',
  properties: { city: { type: 'string' } },
  required: ['city'],
};

const eventually = async <T>(probe: () => Promise<T | undefined>, timeoutMs = 5_000): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
};
const failureOf = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: unknown) => error,
  );

describe('compatible gateway: Responses and Messages (e2e, official clients)', () => {
  let api: TestApi;
  let upstream: FakeUpstream;
  let limited: { id: string; key: string };

  beforeAll(async () => {
    upstream = await startFakeUpstream({ requireApiKey: UPSTREAM_KEY });
    const modelsFile = writeModelsFile([
      'providers:',
      `  fake: { baseUrl: '${upstream.url}', apiKeyEnv: FAKE_UPSTREAM_KEY }`,
      'models:',
      '  - { key: fake-chat, modelId: fake-model, provider: fake, kind: chat, pricing: { input: 1, output: 2 } }',
      '  - { key: fake-slow, modelId: fake-model, provider: fake, kind: chat, timeoutMs: 300 }',
      '  - { key: fake-native, modelId: fake-model, provider: fake, kind: chat, api: responses }',
    ]);
    api = await startTestApi({ MODELS_FILE: modelsFile, FAKE_UPSTREAM_KEY: UPSTREAM_KEY });
    // A key whose limit no call fits in: every call is a 429.
    limited = await issueKey({ usageLimit: { tokens: 1, window: 'day' } });
  });
  afterEach(() => upstream.reset());
  afterAll(async () => {
    await api.close();
    await upstream.close();
    expect(api.logs()).not.toContain(UPSTREAM_KEY);
  });

  const compatUrl = () => `${api.url}/api/compat/v1`;
  const issueKey = async (body: Record<string, unknown> = {}) => {
    const reply = await client(api.url).post<{ id: string; key: string }>(`${CORE}/api-keys`, {
      name: 'protocols',
      ...body,
    });
    expect(reply.status).toBe(201);
    return reply.body;
  };
  const recordedCalls = async (apiKeyId: string, count: number): Promise<ModelCall[]> => {
    const store = api.app.get<EventStore>(EVENT_STORE);
    return eventually(async () => {
      const calls = callsIn(await store.readStream(usageStreamId(apiKeyId, utcDay(new Date()))));
      return calls.length >= count ? calls : undefined;
    });
  };

  describe('POST /responses with the openai SDK', () => {
    const sdk = (apiKey: string = ADMIN_KEY) => new OpenAI({ baseURL: compatUrl(), apiKey, maxRetries: 0 });
    const tools: OpenAI.Responses.FunctionTool[] = [
      { type: 'function', name: 'get_weather', parameters: { ...WEATHER_PARAMETERS }, strict: false },
    ];

    it('answers text with output items and usage, recorded on its own surface', async () => {
      const key = await issueKey();
      const response = await sdk(key.key).responses.create({
        model: 'offline-chat',
        instructions: 'Be brief.',
        input: 'Hello there',
        max_output_tokens: 200,
      });
      expect(response).toMatchObject({ object: 'response', status: 'completed', model: 'offline-chat' });
      expect(response.output_text.length).toBeGreaterThan(0);
      expect(response.output[0]).toMatchObject({ type: 'message', role: 'assistant' });
      expect(response.usage!.input_tokens).toBeGreaterThan(0);
      expect(response.usage!.total_tokens).toBe(response.usage!.input_tokens + response.usage!.output_tokens);
      const [call] = await recordedCalls(key.id, 1);
      expect(call).toMatchObject({ surface: 'compat-responses', operation: 'chat', outcome: 'completed' });
    });

    it('streams the typed events in order with sequence numbers, assembled by the stream helper', async () => {
      const stream = sdk().responses.stream({ model: 'offline-chat', input: 'Tell me about streams' });
      const types: string[] = [];
      const sequence: number[] = [];
      let deltas = '';
      for await (const event of stream) {
        types.push(event.type);
        sequence.push(event.sequence_number);
        if (event.type === 'response.output_text.delta') deltas += event.delta;
      }
      const final = await stream.finalResponse();
      expect(final.output_text).toBe(deltas);
      expect(deltas.length).toBeGreaterThan(0);
      expect(sequence).toEqual(sequence.map((_, index) => index));
      const distinct = types.filter((type, index) => type !== types[index - 1]);
      expect(distinct).toEqual([
        'response.created',
        'response.in_progress',
        'response.output_item.added',
        'response.content_part.added',
        'response.output_text.delta',
        'response.output_text.done',
        'response.content_part.done',
        'response.output_item.done',
        'response.completed',
      ]);
      expect(final.usage!.output_tokens).toBeGreaterThan(0);

      // create({ stream: true }) yields the same events.
      const events: string[] = [];
      for await (const event of await sdk().responses.create({
        model: 'offline-chat',
        input: 'Hi',
        stream: true,
      }))
        events.push(event.type);
      expect(events.at(-1)).toBe('response.completed');
    });

    it('round-trips a function call: function_call item out, function_call_output in', async () => {
      const first = await sdk().responses.create({
        model: 'offline-chat',
        input: 'Weather in Paris?',
        tools,
      });
      const call = first.output.find((item) => item.type === 'function_call');
      if (call?.type !== 'function_call') throw new Error('expected a function call');
      expect(call.name).toBe('get_weather');
      expect(JSON.parse(call.arguments)).toHaveProperty('city');
      const second = await sdk().responses.create({
        model: 'offline-chat',
        tools,
        input: [
          { role: 'user', content: 'Weather in Paris?' },
          ...first.output,
          { type: 'function_call_output', call_id: call.call_id, output: '21°C, sunny' },
        ] as OpenAI.Responses.ResponseInput,
      });
      expect(second.output_text).toContain('21°C, sunny');
    });

    it('translates to the upstream chat completions and streams its tool call as argument deltas', async () => {
      upstream.set({ toolCall: { name: 'get_weather', arguments: { city: 'Paris' } } });
      const stream = sdk().responses.stream({
        model: 'fake-chat',
        instructions: 'Use tools.',
        input: 'Weather in Paris?',
        tools,
        temperature: 0.5,
        max_output_tokens: 64,
      });
      const types = new Set<string>();
      for await (const event of stream) types.add(event.type);
      const final = await stream.finalResponse();
      const call = final.output.find((item) => item.type === 'function_call');
      if (call?.type !== 'function_call') throw new Error('expected a function call');
      expect(JSON.parse(call.arguments)).toEqual({ city: 'Paris' });
      expect(types).toContain('response.function_call_arguments.delta');
      expect(types).toContain('response.function_call_arguments.done');
      expect(upstream.requests.at(-1)!.body).toMatchObject({
        model: 'fake-model',
        stream: true,
        temperature: 0.5,
        max_completion_tokens: 64,
        messages: [
          { role: 'system', content: 'Use tools.' },
          { role: 'user', content: 'Weather in Paris?' },
        ],
        tools: [{ type: 'function', function: { name: 'get_weather', parameters: WEATHER_PARAMETERS } }],
      });
    });

    it('takes the functions of namespace tools (as the Codex CLI sends them) and names the namespace in the call', async () => {
      const response = await sdk().responses.create({
        model: 'offline-chat',
        input: 'Spawn a helper',
        tools: [
          {
            type: 'namespace',
            name: 'agents',
            description: 'Sub-agents',
            tools: [
              { type: 'function', name: 'spawn_agent', parameters: { type: 'object', properties: {} } },
            ],
          },
        ] as never,
      });
      expect(response.output.find((item) => item.type === 'function_call')).toMatchObject({
        name: 'spawn_agent',
        namespace: 'agents',
      });
      // A hosted tool has no counterpart upstream: refused naming it.
      const hosted = await failureOf(
        sdk().responses.create({ model: 'offline-chat', input: 'x', tools: [{ type: 'web_search' }] }),
      );
      expect(hosted).toMatchObject({ status: 400, param: 'tools.0.type', code: 'unsupported_parameter' });
    });

    it.each([
      ['conversation', { conversation: 'conv_123' }],
      ['text.format', { text: { format: { type: 'json_object' } } }],
    ])('refuses %s with a 400 naming it', async (field, extra) => {
      const failure = await failureOf(
        sdk().responses.create({ model: 'offline-chat', input: 'x', ...extra } as never),
      );
      expect(failure).toBeInstanceOf(OpenAI.BadRequestError);
      expect(failure).toMatchObject({ status: 400, param: field, code: 'unsupported_parameter' });
      // store: false is what stateless clients send: accepted, and nothing is kept.
      expect((await sdk().responses.create({ model: 'offline-chat', input: 'x', store: false })).status).toBe(
        'completed',
      );
    });

    it('answers 401, 404 model_not_found and 429 with Retry-After in the SDK error classes', async () => {
      expect(
        await failureOf(sdk('nope').responses.create({ model: 'offline-chat', input: 'x' })),
      ).toBeInstanceOf(OpenAI.AuthenticationError);
      const missing = await failureOf(sdk().responses.create({ model: 'no-such', input: 'x', stream: true }));
      expect(missing).toBeInstanceOf(OpenAI.NotFoundError);
      expect(missing).toMatchObject({ code: 'model_not_found', param: 'model' });
      const limit = await failureOf(sdk(limited.key).responses.create({ model: 'offline-chat', input: 'x' }));
      expect(limit).toBeInstanceOf(OpenAI.RateLimitError);
      expect(limit).toMatchObject({ code: 'usage_limit_exceeded' });
      expect(
        Number((limit as InstanceType<typeof OpenAI.RateLimitError>).headers.get('retry-after')),
      ).toBeGreaterThan(0);
    });
  });

  describe('POST /responses passed through to an upstream that speaks it (api: responses)', () => {
    const sdk = (apiKey: string = ADMIN_KEY) => new OpenAI({ baseURL: compatUrl(), apiKey, maxRetries: 0 });

    it('forwards the body to the upstream /responses (never stored there) and records its usage', async () => {
      const key = await issueKey();
      upstream.set({
        usage: { prompt_tokens: 7, completion_tokens: 3, prompt_tokens_details: { cached_tokens: 2 } },
      });
      const response = await sdk(key.key).responses.create({
        model: 'fake-native',
        input: [{ role: 'user', content: [{ type: 'input_text', text: 'Hello native' }] }],
        max_output_tokens: 32,
      });
      expect(response.output_text).toBe('Echo: Hello native');
      expect(response.model).toBe('fake-native');
      const sent = upstream.requests.at(-1)!;
      expect(sent.path).toBe('/v1/responses');
      expect(sent.headers.authorization).toBe(`Bearer ${UPSTREAM_KEY}`);
      expect(sent.body).toMatchObject({
        model: 'fake-model',
        store: false,
        max_output_tokens: 32,
        stream: false,
      });
      const [call] = await recordedCalls(key.id, 1);
      expect(call).toMatchObject({
        surface: 'compat-responses',
        model: 'fake-native',
        inputTokens: 7,
        cachedInputTokens: 2,
        outputTokens: 3,
        estimated: false,
      });
    });

    it('passes the typed events through, text and a function call, with the model key', async () => {
      const stream = sdk().responses.stream({ model: 'fake-native', input: 'Stream it natively' });
      const final = await stream.finalResponse();
      expect(final.output_text).toBe('Echo: Stream it natively');
      expect(final.model).toBe('fake-native');
      expect(upstream.requests.at(-1)!.body).toMatchObject({ stream: true, store: false });

      upstream.set({ toolCall: { name: 'get_weather', arguments: { city: 'Paris' } } });
      const tools: OpenAI.Responses.FunctionTool[] = [
        { type: 'function', name: 'get_weather', parameters: { ...WEATHER_PARAMETERS }, strict: false },
      ];
      const called = await sdk()
        .responses.stream({ model: 'fake-native', input: 'Weather?', tools })
        .finalResponse();
      const call = called.output.find((item) => item.type === 'function_call');
      if (call?.type !== 'function_call') throw new Error('expected a function call');
      expect(JSON.parse(call.arguments)).toEqual({ city: 'Paris' });
    });

    it('keeps the policy: never stored upstream, upstream failures mapped without their message', async () => {
      const answered = await sdk().responses.create({ model: 'fake-native', input: 'x', store: true });
      expect(answered.output_text).toBe('Echo: x');
      expect(upstream.requests.at(-1)!.body).toMatchObject({ store: false });
      upstream.set({ failWith: { status: 500, error: { message: `boom ${UPSTREAM_KEY}` } } });
      const failed = await failureOf(sdk().responses.create({ model: 'fake-native', input: 'x' }));
      expect(failed).toBeInstanceOf(OpenAI.InternalServerError);
      expect(failed).toMatchObject({ status: 502, code: 'upstream_error' });
      expect(String((failed as Error).message)).not.toContain(UPSTREAM_KEY);
    });
  });

  describe('a stream whose upstream stalls', () => {
    it("ends with the route's error event, never a false completion (Responses and Messages)", async () => {
      upstream.set({ stallAfterChunks: 2 });
      const responses = new OpenAI({
        baseURL: compatUrl(),
        apiKey: ADMIN_KEY,
        maxRetries: 0,
      }).responses.stream({
        model: 'fake-slow',
        input: 'one two three four five',
      });
      // The Responses stream's own `error` event (the SDK yields it; the stream then ends without a response).
      const types: string[] = [];
      for await (const event of responses) types.push(event.type);
      expect(types.at(-1)).toBe('error');
      expect(types).not.toContain('response.completed');
      expect(await failureOf(responses.finalResponse())).not.toBeNull();
      expect(types).toContain('response.output_text.delta');

      const messages = new Anthropic({ baseURL: `${api.url}/api/compat`, apiKey: ADMIN_KEY, maxRetries: 0 });
      const stream = messages.messages.stream({
        model: 'fake-slow',
        max_tokens: 64,
        messages: [{ role: 'user', content: 'one two three four five' }],
      });
      const failure = await failureOf(stream.finalMessage());
      expect(failure).toBeInstanceOf(Anthropic.APIError);
      expect(String((failure as Error).message)).toContain('api_error');
    });
  });

  describe('POST /responses with the AI SDK and LangChain', () => {
    const provider = (apiKey: string = ADMIN_KEY) => createOpenAI({ baseURL: compatUrl(), apiKey });
    const weather = tool({
      description: 'The weather in a city',
      inputSchema: jsonSchema<{ city: string }>({ ...WEATHER_PARAMETERS }),
      execute: async ({ city }) => `21°C and sunny in ${city}`,
    });

    it('generateText, streamText and a tool loop with the default openai(...) provider', async () => {
      const openai = provider();
      const text = await generateText({ model: openai('offline-chat'), prompt: 'Hello', maxRetries: 0 });
      expect(text.text.length).toBeGreaterThan(0);
      expect(text.usage.inputTokens).toBeGreaterThan(0);

      const streamed = streamText({ model: openai('offline-chat'), prompt: 'Hello again', maxRetries: 0 });
      let chunks = '';
      for await (const piece of streamed.textStream) chunks += piece;
      expect(chunks).toBe(await streamed.text);
      expect(chunks.length).toBeGreaterThan(0);

      const looped = await generateText({
        model: openai('offline-chat'),
        prompt: 'Weather in Paris?',
        tools: { get_weather: weather },
        stopWhen: stepCountIs(3),
        maxRetries: 0,
      });
      expect(looped.steps[0]!.toolCalls[0]).toMatchObject({ toolName: 'get_weather' });
      expect(looped.text).toContain('21°C and sunny');
    });

    it('answers 401, 404 and 429 as APICallError with their status codes', async () => {
      const statusOf = async (apiKey: string, model: string) => {
        const failure = await failureOf(
          generateText({ model: provider(apiKey)(model), prompt: 'x', maxRetries: 0 }),
        );
        expect(APICallError.isInstance(failure)).toBe(true);
        return (failure as APICallError).statusCode;
      };
      expect(await statusOf('nope', 'offline-chat')).toBe(401);
      expect(await statusOf(ADMIN_KEY, 'no-such')).toBe(404);
      expect(await statusOf(limited.key, 'offline-chat')).toBe(429);
    });

    it('LangChain ChatOpenAI with useResponsesApi: invoke, stream, tools and errors', async () => {
      const chat = (apiKey: string = ADMIN_KEY, model = 'offline-chat') =>
        new ChatOpenAI({
          model,
          apiKey,
          useResponsesApi: true,
          maxRetries: 0,
          configuration: { baseURL: compatUrl() },
        });
      const answer = await chat().invoke('Hello from LangChain');
      expect(answer.text.length).toBeGreaterThan(0);
      expect(answer.usage_metadata?.input_tokens).toBeGreaterThan(0);
      let streamed = '';
      for await (const chunk of await chat().stream('Hello streamed')) streamed += chunk.text;
      expect(streamed.length).toBeGreaterThan(0);
      const withTools = chat().bindTools([
        { type: 'function', function: { name: 'get_weather', parameters: { ...WEATHER_PARAMETERS } } },
      ]);
      const called = await withTools.invoke('Weather in Paris?');
      expect(called.tool_calls?.[0]).toMatchObject({ name: 'get_weather' });

      const statusOf = async (apiKey: string, model: string) =>
        ((await failureOf(chat(apiKey, model).invoke('x'))) as { status?: number }).status;
      expect(await statusOf('nope', 'offline-chat')).toBe(401);
      expect(await statusOf(ADMIN_KEY, 'no-such')).toBe(404);
      expect(await statusOf(limited.key, 'offline-chat')).toBe(429);
    });
  });

  describe('POST /messages with the Anthropic SDK', () => {
    // The Anthropic SDK appends /v1/messages to its base URL.
    const sdk = (apiKey: string = ADMIN_KEY) =>
      new Anthropic({ baseURL: `${api.url}/api/compat`, apiKey, maxRetries: 0 });
    const tools: Anthropic.Tool[] = [
      { name: 'get_weather', description: 'The weather', input_schema: { ...WEATHER_PARAMETERS } },
    ];

    it('counts the input tokens of a request (count_tokens) without calling or billing a model', async () => {
      const key = await issueKey();
      const small = await sdk(key.key).messages.countTokens({
        model: 'offline-chat',
        messages: [{ role: 'user', content: 'Hello Claude' }],
      });
      const larger = await sdk(key.key).messages.countTokens({
        model: 'offline-chat',
        system: 'Be brief.',
        tools,
        messages: [{ role: 'user', content: 'Hello Claude, what is the weather in Paris today?' }],
      });
      expect(small.input_tokens).toBeGreaterThan(0);
      expect(larger.input_tokens).toBeGreaterThan(small.input_tokens);
      expect(await recordedCalls(key.id, 0)).toEqual([]);
      const missing = await failureOf(
        sdk().messages.countTokens({ model: 'no-such', messages: [{ role: 'user', content: 'x' }] }),
      );
      expect(missing).toBeInstanceOf(Anthropic.NotFoundError);
    });

    it('answers messages.create with text and usage, recorded on its own surface', async () => {
      const key = await issueKey();
      const message = await sdk(key.key).messages.create({
        model: 'offline-chat',
        max_tokens: 256,
        system: [{ type: 'text', text: 'Be brief.' }],
        messages: [{ role: 'user', content: 'Hello Claude' }],
      });
      expect(message).toMatchObject({ type: 'message', role: 'assistant', stop_reason: 'end_turn' });
      expect(message.content[0]).toMatchObject({ type: 'text' });
      expect(message.usage.input_tokens).toBeGreaterThan(0);
      const [call] = await recordedCalls(key.id, 1);
      expect(call).toMatchObject({ surface: 'compat-messages', operation: 'chat', outcome: 'completed' });
      // Authorization: Bearer works as well (authToken), with anthropic-version sent as usual.
      const bearer = new Anthropic({ baseURL: `${api.url}/api/compat`, apiKey: null, authToken: ADMIN_KEY });
      expect(
        (
          await bearer.messages.create({
            model: 'offline-chat',
            max_tokens: 16,
            messages: [{ role: 'user', content: 'x' }],
          })
        ).type,
      ).toBe('message');
    });

    it('takes system messages inside messages (as Claude Code sends its reminders)', async () => {
      await sdk().messages.create({
        model: 'fake-chat',
        max_tokens: 16,
        messages: [
          { role: 'user', content: 'first' },
          { role: 'system', content: [{ type: 'text', text: 'a reminder' }] },
        ] as never,
      });
      expect((upstream.requests.at(-1)!.body as { messages: unknown[] }).messages).toEqual([
        { role: 'user', content: 'first' },
        { role: 'system', content: 'a reminder' },
      ]);
    });

    it('streams with messages.stream: the event sequence, text deltas and final usage', async () => {
      const stream = sdk().messages.stream({
        model: 'offline-chat',
        max_tokens: 256,
        messages: [{ role: 'user', content: 'Tell me about streams' }],
      });
      const types: string[] = [];
      let deltas = '';
      for await (const event of stream) {
        types.push(event.type);
        if (event.type === 'content_block_delta' && event.delta.type === 'text_delta')
          deltas += event.delta.text;
      }
      const final = await stream.finalMessage();
      expect(final.content[0]).toMatchObject({ type: 'text', text: deltas });
      expect(types.filter((type, index) => type !== types[index - 1])).toEqual([
        'message_start',
        'content_block_start',
        'content_block_delta',
        'content_block_stop',
        'message_delta',
        'message_stop',
      ]);
      expect(final.stop_reason).toBe('end_turn');
      expect(final.usage.input_tokens).toBeGreaterThan(0);
      expect(final.usage.output_tokens).toBeGreaterThan(0);
    });

    it('round-trips a tool: tool_use out, tool_result in, also streamed through the upstream', async () => {
      const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'Weather in Paris?' }];
      const first = await sdk().messages.create({ model: 'offline-chat', max_tokens: 256, tools, messages });
      expect(first.stop_reason).toBe('tool_use');
      const use = first.content.find((block) => block.type === 'tool_use');
      if (use?.type !== 'tool_use') throw new Error('expected a tool_use block');
      expect(use.name).toBe('get_weather');
      expect(use.input).toHaveProperty('city');
      messages.push(
        { role: 'assistant', content: first.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: '21°C, sunny' }] },
      );
      const second = await sdk().messages.create({ model: 'offline-chat', max_tokens: 256, tools, messages });
      expect(second.stop_reason).toBe('end_turn');
      expect(second.content[0]).toMatchObject({ type: 'text' });
      expect((second.content[0] as Anthropic.TextBlock).text).toContain('21°C, sunny');

      upstream.set({ toolCall: { name: 'get_weather', arguments: { city: 'Paris' } } });
      const stream = sdk().messages.stream({
        model: 'fake-chat',
        max_tokens: 64,
        tools,
        tool_choice: { type: 'tool', name: 'get_weather' },
        stop_sequences: ['END'],
        messages: [messages[0]!],
      });
      const final = await stream.finalMessage();
      expect(final.content[0]).toMatchObject({
        type: 'tool_use',
        name: 'get_weather',
        input: { city: 'Paris' },
      });
      expect(final.stop_reason).toBe('tool_use');
      expect(upstream.requests.at(-1)!.body).toMatchObject({
        model: 'fake-model',
        stream: true,
        max_completion_tokens: 64,
        stop: ['END'],
        tool_choice: { type: 'function', function: { name: 'get_weather' } },
        tools: [{ type: 'function', function: { name: 'get_weather', parameters: WEATHER_PARAMETERS } }],
      });
      // The tool result went upstream as a tool message after the assistant's tool call.
      upstream.set({ toolCall: undefined });
      await sdk().messages.create({ model: 'fake-chat', max_tokens: 64, tools, messages });
      expect((upstream.requests.at(-1)!.body as { messages: unknown[] }).messages.slice(1)).toMatchObject([
        { role: 'assistant', tool_calls: [{ id: use.id, function: { name: 'get_weather' } }] },
        { role: 'tool', tool_call_id: use.id, content: '21°C, sunny' },
      ]);
    });

    it("answers errors in Anthropic's shape and the SDK's classes: 400, 401, 404, 429 with retry-after", async () => {
      const noMax = await failureOf(
        sdk().messages.create({ model: 'offline-chat', messages: [{ role: 'user', content: 'x' }] } as never),
      );
      expect(noMax).toBeInstanceOf(Anthropic.BadRequestError);
      expect((noMax as InstanceType<typeof Anthropic.BadRequestError>).error).toMatchObject({
        type: 'error',
        error: { type: 'invalid_request_error', message: 'max_tokens is required' },
      });
      const ask = (apiKey: string, model: string) =>
        failureOf(
          sdk(apiKey).messages.create({ model, max_tokens: 8, messages: [{ role: 'user', content: 'x' }] }),
        );
      expect(await ask('nope', 'offline-chat')).toBeInstanceOf(Anthropic.AuthenticationError);
      const missing = await ask(ADMIN_KEY, 'no-such');
      expect(missing).toBeInstanceOf(Anthropic.NotFoundError);
      expect((missing as InstanceType<typeof Anthropic.NotFoundError>).error).toMatchObject({
        type: 'error',
        error: { type: 'not_found_error', message: expect.stringContaining("'no-such'") },
      });
      const limit = await ask(limited.key, 'offline-chat');
      expect(limit).toBeInstanceOf(Anthropic.RateLimitError);
      expect(
        Number((limit as InstanceType<typeof Anthropic.RateLimitError>).headers.get('retry-after')),
      ).toBeGreaterThan(0);
      // The chat-completions envelope stays on the other routes.
      const other = await client(api.url, 'nope').post('/api/compat/v1/chat/completions', {
        model: 'x',
        messages: [],
      });
      expect(other.body).toMatchObject({ error: { type: 'authentication_error', code: 'invalid_api_key' } });
    });
  });

  describe('malformed bodies', () => {
    const send = (path: string, body: string) =>
      fetch(`${compatUrl()}/${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
        body,
      });

    it("answer a 4xx in each route's own envelope, never a 5xx", async () => {
      const responses = [
        '{}',
        '[]',
        '{"model":"offline-chat"}',
        '{"model":"offline-chat","input":[]}',
        '{"model":"offline-chat","input":{"$gt":1}}',
        '{"model":"offline-chat","input":[{"role":"user"}]}',
        '{"model":"offline-chat","input":[{"role":"user","content":[{"type":"input_file","file_id":"f"}]}]}',
        '{"model":"offline-chat","input":[{"type":"function_call","call_id":"c"}]}',
        '{"model":"offline-chat","input":[{"type":"function_call_output","output":"x"}]}',
        '{"model":"offline-chat","input":[{"type":"item_reference","id":"msg_1"}]}',
        '{"model":"offline-chat","input":[{"type":"computer_call"}]}',
        '{"model":"offline-chat","input":[{"type":"reasoning","summary":[]}]}',
        '{"model":"offline-chat","input":"x","tools":[{"type":"function"}]}',
        '{"model":"offline-chat","input":"x","tools":[{"type":"namespace","name":"n","tools":[{"type":"file_search"}]}]}',
        '{"model":"offline-chat","input":"x","tools":[{"type":"namespace","name":"n","tools":"x"}]}',
        '{"model":"offline-chat","input":"x","max_output_tokens":0}',
        '{"model":"offline-chat","input":"x","stream":"yes"}',
        '{"model":"offline-chat","input":"x","background":true}',
        `{"model":"offline-chat","input":"${'x'.repeat(1_000_001)}"}`,
      ];
      const messages = [
        '{}',
        '{"model":"offline-chat","max_tokens":8}',
        '{"model":"offline-chat","max_tokens":8,"messages":[]}',
        '{"model":"offline-chat","max_tokens":0,"messages":[{"role":"user","content":"x"}]}',
        '{"model":"offline-chat","max_tokens":8,"messages":[{"role":"tool","content":"x"}]}',
        '{"model":"offline-chat","max_tokens":8,"messages":[{"role":"user","content":[{"type":"document"}]}]}',
        '{"model":"offline-chat","max_tokens":8,"messages":[{"role":"user","content":[{"type":"image","source":{}}]}]}',
        '{"model":"offline-chat","max_tokens":8,"messages":[{"role":"user","content":[{"type":"tool_result"}]}]}',
        '{"model":"offline-chat","max_tokens":8,"messages":[{"role":"assistant","content":[{"type":"tool_use"}]}]}',
        '{"model":"offline-chat","max_tokens":8,"messages":[{"role":"user","content":"x"}],"tools":[{"type":"web_search_20250305","name":"web_search"}]}',
        '{"model":"offline-chat","max_tokens":8,"messages":[{"role":"user","content":"x"}],"tool_choice":{"type":"tool"}}',
        '{"model":"offline-chat","max_tokens":8,"messages":[{"role":"user","content":"x"}],"stop_sequences":["a","b","c","d","e"]}',
        '{"model":"offline-chat","max_tokens":8,"messages":[{"role":"user","content":"x"}],"temperature":1.5}',
        '{"model":"offline-chat","max_tokens":8,"messages":"hi"}',
      ];
      const problems: string[] = [];
      for (const [path, bodies, shape] of [
        ['responses', responses, /^\{"error":\{"message":/],
        ['messages', messages, /^\{"type":"error","error":\{"type":"[a-z_]+","message":/],
      ] as const)
        for (const body of bodies) {
          const response = await send(path, body);
          const text = await response.text();
          if (response.status < 400 || response.status >= 500 || !shape.test(text))
            problems.push(`${path} ${body.slice(0, 80)} → ${response.status} ${text.slice(0, 160)}`);
        }
      expect(problems).toEqual([]);
    });
  });

  describe('POST /messages with the AI SDK Anthropic provider', () => {
    const provider = (apiKey: string = ADMIN_KEY) => createAnthropic({ baseURL: compatUrl(), apiKey });

    it('generateText, streamText and a tool loop, and 401/404/429 as APICallError', async () => {
      const anthropic = provider();
      const text = await generateText({ model: anthropic('offline-chat'), prompt: 'Hello', maxRetries: 0 });
      expect(text.text.length).toBeGreaterThan(0);
      const streamed = streamText({ model: anthropic('offline-chat'), prompt: 'Hello again', maxRetries: 0 });
      expect((await streamed.text).length).toBeGreaterThan(0);
      const looped = await generateText({
        model: anthropic('offline-chat'),
        prompt: 'Weather in Paris?',
        tools: {
          get_weather: tool({
            inputSchema: jsonSchema<{ city: string }>({ ...WEATHER_PARAMETERS }),
            execute: async ({ city }) => `21°C and sunny in ${city}`,
          }),
        },
        stopWhen: stepCountIs(3),
        maxRetries: 0,
      });
      expect(looped.text).toContain('21°C and sunny');

      const statusOf = async (apiKey: string, model: string) => {
        const failure = await failureOf(
          generateText({ model: provider(apiKey)(model), prompt: 'x', maxRetries: 0 }),
        );
        expect(APICallError.isInstance(failure)).toBe(true);
        return (failure as APICallError).statusCode;
      };
      expect(await statusOf('nope', 'offline-chat')).toBe(401);
      expect(await statusOf(ADMIN_KEY, 'no-such')).toBe(404);
      expect(await statusOf(limited.key, 'offline-chat')).toBe(429);
    });
  });
});
