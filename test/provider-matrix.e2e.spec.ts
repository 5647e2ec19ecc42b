// Every client protocol × every provider type: the official openai SDK on chat completions and Responses, the
// Anthropic SDK on Messages, and the core conversation and generateText endpoints, each against a fake upstream that
// speaks one vendor's wire format exactly (libs/core/testing/src/fake-vendors). For each pair: text, streaming, tools
// (two parallel calls), image input, the system prompt, stop reasons, usage (cache reads and writes) priced, and the
// vendor's errors (rate limit, overload, context too long, bad request, our upstream key refused) in the client's own
// envelope.
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { FAKE_VENDORS, type FakeVendorUpstream, type VendorFailure } from '#testing/fake-vendors/index';
import { client, CORE, startTestApi, writeModelsFile, type TestApi } from './support/api.js';
import { streamTurn } from './support/turn-stream.js';
import { usageEventsOf } from './support/usage-events.js';

const TYPES = Object.keys(FAKE_VENDORS);
const PIXEL =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
const PRICING = { input: 3, output: 15, cachedInput: 0.3, cacheWrite: 3.75 };
const envName = (type: string) => `MATRIX_KEY_${type.toUpperCase()}`;
/** What each vendor's usage reports of its prompt cache: Ollama reports none; only Anthropic and Bedrock write. */
const cacheReads = (type: string) => type !== 'ollama';
const cacheWrites = (type: string) => type === 'anthropic' || type === 'bedrock';

/** What each vendor failure becomes on the openai-shaped routes, and the Anthropic SDK's error type on Messages. */
const MAPPED: Record<VendorFailure, { status: number; code: string; anthropic: string }> = {
  rate_limit: { status: 429, code: 'upstream_rate_limited', anthropic: 'rate_limit_error' },
  overloaded: { status: 503, code: 'upstream_overloaded', anthropic: 'overloaded_error' },
  context_length: { status: 400, code: 'context_length_exceeded', anthropic: 'invalid_request_error' },
  bad_request: { status: 400, code: 'upstream_rejected_request', anthropic: 'invalid_request_error' },
  auth: { status: 502, code: 'upstream_error', anthropic: 'api_error' },
};

describe('provider matrix: every client protocol × every provider type (e2e)', () => {
  let api: TestApi;
  let key: { id: string; key: string };
  const fakes: Record<string, FakeVendorUpstream> = {};
  const agents: Record<string, string> = {};
  const openai = () => new OpenAI({ baseURL: `${api.url}/api/compat/v1`, apiKey: key.key, maxRetries: 0 });
  const anthropic = () => new Anthropic({ baseURL: `${api.url}/api/compat`, apiKey: key.key, maxRetries: 0 });
  const last = (type: string) => fakes[type]!.requests.at(-1)!;

  beforeAll(async () => {
    const env: Record<string, string> = {};
    const providers: string[] = [];
    const models: string[] = [];
    for (const type of TYPES) {
      const vendor = FAKE_VENDORS[type]!;
      fakes[type] = await vendor.start({ apiKey: `key-${type}-0123456789` });
      env[envName(type)] = `key-${type}-0123456789`;
      Object.assign(env, vendor.env ?? {});
      providers.push(`  p-${type}: ${JSON.stringify(vendor.provider(fakes[type], envName(type)))}`);
      for (const name of [`m-${type}`, `m-${type}-priced`])
        models.push(
          `  - { key: ${name}, provider: p-${type}, modelId: vendor-model-${type}, kind: chat, pricing: ${JSON.stringify(PRICING)} }`,
        );
    }
    api = await startTestApi({
      ...env,
      MODELS_FILE: writeModelsFile(['providers:', ...providers, 'models:', ...models]),
    });
    key = (await client(api.url).post<{ id: string; key: string }>(`${CORE}/api-keys`, { name: 'matrix' }))
      .body;
    const space = await client(api.url).post<{ id: string }>(`${CORE}/spaces`, { name: 'Matrix' });
    for (const type of TYPES) {
      const agent = await client(api.url).post<{ id: string }>(`${CORE}/agents`, {
        spaceId: space.body.id,
        name: `Matrix ${type}`,
        model: `m-${type}`,
        systemPrompt: 'Answer in one short sentence.',
      });
      if (agent.status !== 201) throw new Error(`the Agent was refused: ${JSON.stringify(agent.body)}`);
      agents[type] = agent.body.id;
    }
  });
  beforeEach(() => {
    for (const fake of Object.values(fakes)) fake.script({});
  });
  afterAll(async () => {
    await api?.close();
    await Promise.all(Object.values(fakes).map((fake) => fake.close()));
  });

  const callsOf = (model: string, count: number) => usageEventsOf(api, key.id, model, count);

  describe.each(TYPES)('%s upstream', (type) => {
    const model = `m-${type}`;

    describe('chat completions (openai SDK)', () => {
      it('text with the system prompt, the image and the sampling fields reaching the vendor', async () => {
        fakes[type]!.script({ usage: { input: 12, output: 5 } });
        const answer = await openai().chat.completions.create({
          model,
          max_completion_tokens: 50,
          temperature: 0.5,
          stop: ['END'],
          messages: [
            { role: 'system', content: 'Be brief.' },
            {
              role: 'user',
              content: [
                { type: 'text', text: 'What is in the picture?' },
                { type: 'image_url', image_url: { url: `data:image/png;base64,${PIXEL}` } },
              ],
            },
          ],
        });
        expect(answer.choices[0]!.message.content).toBe('Echo: What is in the picture?');
        expect(answer.choices[0]!.finish_reason).toBe('stop');
        expect(answer.usage).toMatchObject({ prompt_tokens: 12, completion_tokens: 5 });
        const seen = last(type);
        expect(seen).toMatchObject({
          model: `vendor-model-${type}`,
          stream: false,
          system: 'Be brief.',
          maxTokens: 50,
          temperature: 0.5,
          stopSequences: ['END'],
        });
        expect(seen.images).toEqual([{ mediaType: 'image/png', bytes: PIXEL.length }]);
      });

      it('streams text and ends with the finish reason and usage', async () => {
        fakes[type]!.script({ text: 'one two three', stop: 'length', usage: { input: 12, output: 5 } });
        const stream = await openai().chat.completions.create({
          model,
          stream: true,
          stream_options: { include_usage: true },
          messages: [{ role: 'user', content: 'count' }],
        });
        let text = '';
        let finish: string | null = null;
        let usage: OpenAI.CompletionUsage | undefined;
        for await (const chunk of stream) {
          text += chunk.choices[0]?.delta.content ?? '';
          finish = chunk.choices[0]?.finish_reason ?? finish;
          usage = chunk.usage ?? usage;
        }
        expect(text).toBe('one two three');
        expect(finish).toBe('length');
        expect(usage).toMatchObject({ prompt_tokens: 12, completion_tokens: 5 });
        expect(last(type).stream).toBe(true);
      });

      it.each([false, true])('parallel tool calls (stream: %s) and the results sent back', async (stream) => {
        fakes[type]!.script({
          toolCalls: [
            { name: 'get_weather', arguments: { city: 'Paris' } },
            { name: 'get_time', arguments: { zone: 'CET' } },
          ],
        });
        const tools: OpenAI.ChatCompletionTool[] = ['get_weather', 'get_time'].map((name) => ({
          type: 'function',
          function: { name, parameters: { type: 'object', properties: {} } },
        }));
        const messages: OpenAI.ChatCompletionMessageParam[] = [
          { role: 'user', content: 'weather and time?' },
        ];
        const calls: { id: string; name: string; arguments: string }[] = [];
        let finish: string | null = null;
        if (stream) {
          for await (const chunk of await openai().chat.completions.create({
            model,
            messages,
            tools,
            stream,
          })) {
            for (const call of chunk.choices[0]?.delta.tool_calls ?? []) {
              calls[call.index] ??= { id: '', name: '', arguments: '' };
              calls[call.index]!.id += call.id ?? '';
              calls[call.index]!.name += call.function?.name ?? '';
              calls[call.index]!.arguments += call.function?.arguments ?? '';
            }
            finish = chunk.choices[0]?.finish_reason ?? finish;
          }
        } else {
          const answer = await openai().chat.completions.create({ model, messages, tools });
          for (const call of answer.choices[0]!.message.tool_calls ?? [])
            if (call.type === 'function') calls.push({ id: call.id, ...call.function });
          finish = answer.choices[0]!.finish_reason;
        }
        expect(finish).toBe('tool_calls');
        expect(calls.map(({ name, arguments: args }) => [name, JSON.parse(args)])).toEqual([
          ['get_weather', { city: 'Paris' }],
          ['get_time', { zone: 'CET' }],
        ]);
        expect(last(type).tools).toEqual(['get_weather', 'get_time']);
        fakes[type]!.script({ text: 'Sunny, 10:00' });
        const answer = await openai().chat.completions.create({
          model,
          tools,
          messages: [
            ...messages,
            {
              role: 'assistant',
              content: null,
              tool_calls: calls.map((call) => ({
                id: call.id,
                type: 'function' as const,
                function: { name: call.name, arguments: call.arguments },
              })),
            },
            { role: 'tool', tool_call_id: calls[0]!.id, content: 'sunny' },
            { role: 'tool', tool_call_id: calls[1]!.id, content: '10:00' },
          ],
        });
        expect(answer.choices[0]!.message.content).toBe('Sunny, 10:00');
        expect(last(type).toolResults.map((result) => result.text)).toEqual(['sunny', '10:00']);
      });

      it('prices cache reads and writes as the model says', async () => {
        const writes = cacheWrites(type) ? 300 : 0;
        const reads = cacheReads(type) ? 200 : 0;
        fakes[type]!.script({ usage: { input: 1000, output: 100, cacheRead: reads, cacheWrite: writes } });
        // A model key of its own: its one usage event is this call's.
        const priced = `${model}-priced`;
        const answer = await openai().chat.completions.create({
          model: priced,
          messages: [{ role: 'user', content: 'hi' }],
        });
        expect(answer.usage?.prompt_tokens).toBe(1000);
        expect(answer.usage?.prompt_tokens_details?.cached_tokens).toBe(reads);
        const [call] = await callsOf(priced, 1);
        const expected =
          ((1000 - reads - writes) * PRICING.input +
            reads * PRICING.cachedInput +
            writes * PRICING.cacheWrite +
            100 * PRICING.output) /
          1e6;
        expect(call!.costUsd).toBeCloseTo(expected, 9);
        expect(call).toMatchObject({ inputTokens: 1000, cachedInputTokens: reads, outputTokens: 100 });
      });

      it.each(Object.keys(MAPPED) as VendorFailure[])(
        'the vendor\'s "%s" in OpenAI\'s envelope',
        async (failure) => {
          fakes[type]!.script({ failure, retryAfterSeconds: 7 });
          const error = await openai()
            .chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }] })
            .then(
              () => null,
              (caught: unknown) => caught as InstanceType<typeof OpenAI.APIError>,
            );
          expect(error).toBeInstanceOf(OpenAI.APIError);
          expect({ status: error!.status, code: error!.code }).toEqual({
            status: MAPPED[failure].status,
            code: MAPPED[failure].code,
          });
          expect(JSON.stringify(error!.error)).not.toContain(`key-${type}`);
        },
      );
    });

    describe('Responses (openai SDK)', () => {
      it('text with instructions and an image, and the length stop as an incomplete response', async () => {
        fakes[type]!.script({ text: 'A small picture', stop: 'length' });
        const response = await openai().responses.create({
          model,
          store: false,
          instructions: 'Be brief.',
          max_output_tokens: 40,
          input: [
            {
              role: 'user',
              content: [
                { type: 'input_text', text: 'Describe it' },
                { type: 'input_image', image_url: `data:image/png;base64,${PIXEL}`, detail: 'auto' },
              ],
            },
          ],
        });
        expect(response.output_text).toBe('A small picture');
        expect(response.status).toBe('incomplete');
        expect(response.incomplete_details?.reason).toBe('max_output_tokens');
        expect(last(type)).toMatchObject({ system: 'Be brief.', maxTokens: 40, userTexts: ['Describe it'] });
        expect(last(type).images).toHaveLength(1);
      });

      it('streams parallel function calls', async () => {
        fakes[type]!.script({
          toolCalls: [
            { name: 'get_weather', arguments: { city: 'Oslo' } },
            { name: 'get_time', arguments: { zone: 'CET' } },
          ],
        });
        const stream = await openai().responses.create({
          model,
          store: false,
          stream: true,
          input: 'weather and time?',
          tools: ['get_weather', 'get_time'].map((name) => ({
            type: 'function' as const,
            name,
            parameters: { type: 'object', properties: {} },
            strict: false,
          })),
        });
        let completed: OpenAI.Responses.Response | undefined;
        for await (const event of stream) if (event.type === 'response.completed') completed = event.response;
        const calls = completed!.output.filter((item) => item.type === 'function_call');
        expect(calls.map((call) => [call.name, JSON.parse(call.arguments)])).toEqual([
          ['get_weather', { city: 'Oslo' }],
          ['get_time', { zone: 'CET' }],
        ]);
      });

      it("a rate limit in OpenAI's envelope", async () => {
        fakes[type]!.script({ failure: 'rate_limit' });
        const error = await openai()
          .responses.create({ model, store: false, input: 'hi' })
          .then(
            () => null,
            (caught: unknown) => caught as InstanceType<typeof OpenAI.APIError>,
          );
        expect({ status: error?.status, code: error?.code }).toEqual({
          status: 429,
          code: 'upstream_rate_limited',
        });
      });
    });

    describe('Messages (Anthropic SDK)', () => {
      it('text with the system prompt, an image, stop sequences and usage', async () => {
        fakes[type]!.script({ usage: { input: 500, output: 20, cacheRead: 100 } });
        const message = await anthropic().messages.create({
          model,
          max_tokens: 64,
          system: 'Be brief.',
          stop_sequences: ['END'],
          messages: [
            {
              role: 'user',
              content: [
                { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PIXEL } },
                { type: 'text', text: 'What is this?' },
              ],
            },
          ],
        });
        expect(message.content).toEqual([
          expect.objectContaining({ type: 'text', text: 'Echo: What is this?' }),
        ]);
        expect(message.stop_reason).toBe('end_turn');
        const read = cacheReads(type) ? 100 : 0;
        expect(message.usage).toMatchObject({
          input_tokens: 500 - read,
          cache_read_input_tokens: read,
          output_tokens: 20,
        });
        expect(last(type)).toMatchObject({ system: 'Be brief.', maxTokens: 64, stopSequences: ['END'] });
        expect(last(type).images).toEqual([{ mediaType: 'image/png', bytes: PIXEL.length }]);
      });

      it('streams parallel tool use and max_tokens', async () => {
        fakes[type]!.script({
          toolCalls: [
            { name: 'get_weather', arguments: { city: 'Rome' } },
            { name: 'get_time', arguments: { zone: 'CET' } },
          ],
        });
        const stream = anthropic().messages.stream({
          model,
          max_tokens: 64,
          messages: [{ role: 'user', content: 'weather and time?' }],
          tools: ['get_weather', 'get_time'].map((name) => ({
            name,
            input_schema: { type: 'object' as const, properties: {} },
          })),
        });
        const message = await stream.finalMessage();
        expect(message.stop_reason).toBe('tool_use');
        expect(
          message.content
            .filter((block) => block.type === 'tool_use')
            .map((block) => [block.name, block.input]),
        ).toEqual([
          ['get_weather', { city: 'Rome' }],
          ['get_time', { zone: 'CET' }],
        ]);
        fakes[type]!.script({ text: 'cut short', stop: 'length' });
        const cut = await anthropic().messages.create({
          model,
          max_tokens: 2,
          messages: [{ role: 'user', content: 'long answer please' }],
        });
        expect(cut.stop_reason).toBe('max_tokens');
      });

      it.each(Object.keys(MAPPED) as VendorFailure[])(
        'the vendor\'s "%s" in Anthropic\'s envelope',
        async (failure) => {
          fakes[type]!.script({ failure });
          const error = await anthropic()
            .messages.create({ model, max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] })
            .then(
              () => null,
              (caught: unknown) => caught as InstanceType<typeof Anthropic.APIError>,
            );
          expect(error).toBeInstanceOf(Anthropic.APIError);
          expect(error!.status).toBe(MAPPED[failure].status);
          expect((error!.error as { error?: { type?: string } }).error?.type).toBe(MAPPED[failure].anthropic);
        },
      );
    });

    describe('core endpoints (an Agent on this model)', () => {
      it('generateText: the text, the finish reason and usage', async () => {
        fakes[type]!.script({ text: 'Generated.', stop: 'length', usage: { input: 30, output: 3 } });
        const answer = await client(api.url, key.key).post<{
          text: string;
          finishReason: string;
          usage: object;
        }>(`${CORE}/llm/${agents[type]}/generateText`, {
          messages: [{ role: 'user', content: 'Say something' }],
        });
        expect(answer.status).toBe(200);
        expect(answer.body).toMatchObject({ text: 'Generated.', finishReason: 'length' });
        expect(answer.body.usage).toMatchObject({ inputTokens: 30, outputTokens: 3 });
      });

      it("a conversation turn carries the Agent's instructions, and streams", async () => {
        const turn = await client(api.url, key.key).post<{ message: { content: string } }>(
          `${CORE}/llm/${agents[type]}/conversation`,
          { message: 'Hello Agent' },
        );
        expect(turn.status).toBe(201);
        expect(turn.body.message.content).toContain('Echo: ');
        expect(last(type).system).toContain('Answer in one short sentence.');
        fakes[type]!.script({ text: 'streamed answer' });
        const stream = streamTurn(api.url, key.key, agents[type]!, { message: 'Stream please' });
        await stream.done;
        const text = stream.events
          .filter((event) => event.event === 'delta')
          .map((event) => String((event.data as { text?: string }).text ?? ''))
          .join('');
        expect(text).toBe('streamed answer');
        expect(last(type).stream).toBe(true);
      });

      it('an overloaded vendor is a clear 503 on the conversation endpoint', async () => {
        fakes[type]!.script({ failure: 'overloaded' });
        const turn = await client(api.url, key.key).post<{ error: { code: string } }>(
          `${CORE}/llm/${agents[type]}/generateText`,
          { messages: [{ role: 'user', content: 'hi' }] },
        );
        expect(turn.status).toBe(503);
        expect(turn.body.error.code).toBe('upstream_overloaded');
      });
    });
  });
});
