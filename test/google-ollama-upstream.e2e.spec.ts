// Models of provider types `google` (the Gemini API) and `ollama` (its native API) behind the gateway, with the
// official openai SDK as the client on /api/compat/v1 and fake vendors speaking each wire: text and tool calls, whole
// and streamed, a tool result sent back, an image, usage billed, the vendors' refusals as the client's errors, and
// embeddings.
import OpenAI from 'openai';
import { startFakeGoogle } from '#testing/fake-vendors/google';
import { startFakeOllama } from '#testing/fake-vendors/ollama';
import type { FakeVendorUpstream } from '#testing/fake-vendors/vendor-upstream';
import { client, CORE, startTestApi, writeModelsFile, type TestApi } from './support/api.js';

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAAB';

describe('google and ollama upstreams behind the gateway (e2e)', () => {
  let api: TestApi;
  let gemini: FakeVendorUpstream;
  let ollama: FakeVendorUpstream;
  let key: string;
  const sdk = () => new OpenAI({ baseURL: `${api.url}/api/compat/v1`, apiKey: key, maxRetries: 0 });
  const fakeOf = (model: string) => (model === 'gemini-chat' ? gemini : ollama);
  const tools: OpenAI.ChatCompletionTool[] = [
    {
      type: 'function',
      function: {
        name: 'get_weather',
        parameters: { type: 'object', properties: { city: { type: 'string' } }, additionalProperties: false },
      },
    },
  ];

  beforeAll(async () => {
    gemini = await startFakeGoogle({ apiKey: 'gemini-secret' });
    ollama = await startFakeOllama({ apiKey: 'ollama-secret' });
    api = await startTestApi({
      GEMINI_KEY: 'gemini-secret',
      OLLAMA_KEY: 'ollama-secret',
      MODELS_FILE: writeModelsFile([
        'providers:',
        `  gemini: { type: google, baseUrl: '${gemini.baseUrl}', apiKeyEnv: GEMINI_KEY }`,
        `  local: { type: ollama, baseUrl: '${ollama.baseUrl}', apiKeyEnv: OLLAMA_KEY }`,
        'models:',
        '  - { key: gemini-chat, provider: gemini, modelId: gemini-2.5-flash, kind: chat, pricing: { input: 1, output: 2 } }',
        '  - { key: gemini-embed, provider: gemini, modelId: gemini-embedding-001, kind: embedding, pricing: { input: 1, output: 0 } }',
        '  - { key: llama, provider: local, modelId: llama3.2, kind: chat, pricing: { input: 1, output: 2 } }',
        '  - { key: nomic, provider: local, modelId: nomic-embed-text, kind: embedding, pricing: { input: 1, output: 0 } }',
      ]),
    });
    const issued = await client(api.url).post<{ key: string }>(`${CORE}/api-keys`, { name: 'vendors' });
    key = issued.body.key;
  });
  afterEach(() => {
    gemini.script({});
    ollama.script({});
  });
  afterAll(async () => {
    await api?.close();
    await gemini?.close();
    await ollama?.close();
  });

  describe.each(['gemini-chat', 'llama'])('%s', (model) => {
    it('answers text with the system prompt and usage', async () => {
      fakeOf(model).script({ usage: { input: 12, output: 3 } });
      const answer = await sdk().chat.completions.create({
        model,
        messages: [
          { role: 'system', content: 'be brief' },
          { role: 'user', content: 'Hello there' },
        ],
      });
      expect(answer.choices[0]!.message.content).toBe('Echo: Hello there');
      expect(answer.choices[0]!.finish_reason).toBe('stop');
      expect(answer.usage).toMatchObject({ prompt_tokens: 12, completion_tokens: 3 });
      expect(fakeOf(model).requests.at(-1)).toMatchObject({ system: 'be brief', userTexts: ['Hello there'] });
    });

    it('streams text, then the stop', async () => {
      fakeOf(model).script({ text: 'one two three' });
      const stream = await sdk().chat.completions.create({
        model,
        messages: [{ role: 'user', content: 'count' }],
        stream: true,
      });
      let text = '';
      let finish: string | null = null;
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta.content ?? '';
        finish = chunk.choices[0]?.finish_reason ?? finish;
      }
      expect(text).toBe('one two three');
      expect(finish).toBe('stop');
    });

    it('streams parallel tool calls and takes their results back', async () => {
      fakeOf(model).script({
        toolCalls: [
          { name: 'get_weather', arguments: { city: 'Paris' } },
          { name: 'get_weather', arguments: { city: 'Rome' } },
        ],
      });
      const stream = await sdk().chat.completions.create({
        model,
        messages: [{ role: 'user', content: 'weather in Paris and Rome?' }],
        tools,
        stream: true,
      });
      const calls: { id: string; name: string; arguments: string }[] = [];
      let finish: string | null = null;
      for await (const chunk of stream) {
        for (const call of chunk.choices[0]?.delta.tool_calls ?? []) {
          const known = (calls[call.index] ??= { id: '', name: '', arguments: '' });
          known.id += call.id ?? '';
          known.name += call.function?.name ?? '';
          known.arguments += call.function?.arguments ?? '';
        }
        finish = chunk.choices[0]?.finish_reason ?? finish;
      }
      expect(finish).toBe('tool_calls');
      expect(calls.map((call) => [call.name, JSON.parse(call.arguments)])).toEqual([
        ['get_weather', { city: 'Paris' }],
        ['get_weather', { city: 'Rome' }],
      ]);
      fakeOf(model).script({ text: 'Sunny in both' });
      const answer = await sdk().chat.completions.create({
        model,
        tools,
        messages: [
          { role: 'user', content: 'weather in Paris and Rome?' },
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
          { role: 'tool', tool_call_id: calls[1]!.id, content: 'also sunny' },
        ],
      });
      expect(answer.choices[0]!.message.content).toBe('Sunny in both');
      expect(
        fakeOf(model)
          .requests.at(-1)!
          .toolResults.map((result) => result.text),
      ).toEqual(['sunny', 'also sunny']);
    });

    it('passes an image on', async () => {
      await sdk().chat.completions.create({
        model,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'what is this?' },
              { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
            ],
          },
        ],
      });
      expect(fakeOf(model).requests.at(-1)!.images).toEqual([{ mediaType: 'image/png', bytes: PNG.length }]);
    });

    it('answers the vendor refusing a long prompt as context_length_exceeded, and its rate limit as a 429', async () => {
      fakeOf(model).script({ failure: 'context_length' });
      const tooLong = await sdk()
        .chat.completions.create({ model, messages: [{ role: 'user', content: 'x' }] })
        .catch((error: unknown) => error);
      expect(tooLong).toBeInstanceOf(OpenAI.APIError);
      expect(tooLong).toMatchObject({ status: 400, code: 'context_length_exceeded' });
      fakeOf(model).script({ failure: 'rate_limit' });
      const limited = await sdk()
        .chat.completions.create({ model, messages: [{ role: 'user', content: 'x' }] })
        .catch((error: unknown) => error);
      expect(limited).toMatchObject({ status: 429 });
    });
  });

  it.each(['gemini-embed', 'nomic'])('%s embeds texts', async (model) => {
    const result = await sdk().embeddings.create({ model, input: ['alpha', 'beta'] });
    expect(result.data.map((item) => item.index)).toEqual([0, 1]);
    expect(result.data[0]!.embedding).toHaveLength(8);
    expect(result.data[0]!.embedding).not.toEqual(result.data[1]!.embedding);
  });

  it('refuses an image link Gemini cannot type with a 400, before calling it', async () => {
    const before = gemini.requests.length;
    const error = await sdk()
      .chat.completions.create({
        model: 'gemini-chat',
        messages: [
          { role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://x.test/cat' } }] },
        ],
      })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 400, code: 'unsupported_image' });
    expect(gemini.requests.length).toBe(before);
  });
});
