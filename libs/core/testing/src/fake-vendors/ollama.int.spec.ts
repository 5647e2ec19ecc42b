// The fake Ollama must speak the wire the official `ollama` SDK expects, so the SDK drives it here: text and tool
// calls, whole and streamed (NDJSON), counts, images, embeddings and Ollama's `{ error }` answers.
import { Ollama } from 'ollama';
import { startFakeOllama } from './ollama.js';
import type { FakeVendorUpstream } from './vendor-upstream.js';

/** The SDK's error (not exported): the vendor's message and status. */
interface ResponseError {
  readonly name: string;
  readonly error: string;
  readonly status_code: number;
}

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108', 'hex').toString('base64');

describe('fake Ollama (driven by the ollama SDK)', () => {
  let fake: FakeVendorUpstream;
  let ollama: Ollama;

  beforeAll(async () => {
    fake = await startFakeOllama({ apiKey: 'o-key' });
    ollama = new Ollama({ host: fake.baseUrl, headers: { Authorization: 'Bearer o-key' } });
  });
  afterEach(() => fake.script({}));
  afterAll(() => fake.close());

  const tools = [
    {
      type: 'function',
      function: {
        name: 'get_weather',
        parameters: { type: 'object', properties: { city: { type: 'string' } } },
      },
    },
  ];

  it('answers text with its counts, and reads the request back (system, images, options)', async () => {
    fake.script({ usage: { input: 9, output: 3 } });
    const answer = await ollama.chat({
      model: 'llama-test',
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'hello there', images: [PNG] },
      ],
      options: { num_predict: 40, temperature: 0.4, stop: ['END'] },
    });
    expect(answer.message.content).toBe('Echo: hello there');
    expect(answer).toMatchObject({ done: true, done_reason: 'stop', prompt_eval_count: 9, eval_count: 3 });
    expect(fake.requests.at(-1)).toMatchObject({
      model: 'llama-test',
      stream: false,
      system: 'be brief',
      userTexts: ['hello there'],
      images: [{ mediaType: 'image/png', bytes: PNG.length }],
      maxTokens: 40,
      temperature: 0.4,
      stopSequences: ['END'],
    });
  });

  it('streams text as NDJSON lines ended by a done line with the reason', async () => {
    fake.script({ text: 'one two three', stop: 'length' });
    let text = '';
    let last;
    for await (const part of await ollama.chat({
      model: 'llama-test',
      messages: [{ role: 'user', content: 'count' }],
      stream: true,
    })) {
      text += part.message.content;
      last = part;
    }
    expect(text).toBe('one two three');
    expect(last).toMatchObject({ done: true, done_reason: 'length', eval_count: expect.any(Number) });
    expect(fake.requests.at(-1)!.stream).toBe(true);
  });

  it('answers parallel tool calls, whole and streamed, and takes their results back by name', async () => {
    fake.script({
      toolCalls: [
        { name: 'get_weather', arguments: { city: 'Paris' } },
        { name: 'get_weather', arguments: { city: 'Rome' } },
      ],
    });
    const answer = await ollama.chat({
      model: 'llama-test',
      messages: [{ role: 'user', content: 'weather?' }],
      tools,
    });
    expect(answer.message.tool_calls?.map((call) => call.function.arguments)).toEqual([
      { city: 'Paris' },
      { city: 'Rome' },
    ]);
    const streamed = [];
    for await (const part of await ollama.chat({
      model: 'llama-test',
      messages: [{ role: 'user', content: 'weather?' }],
      tools,
      stream: true,
    }))
      streamed.push(...(part.message.tool_calls ?? []));
    expect(streamed).toHaveLength(2);
    fake.script({});
    await ollama.chat({
      model: 'llama-test',
      messages: [
        { role: 'user', content: 'weather?' },
        answer.message,
        { role: 'tool', content: 'sunny', tool_name: 'get_weather' },
      ],
    });
    expect(fake.requests.at(-1)).toMatchObject({
      tools: [],
      toolResults: [{ callId: 'get_weather', text: 'sunny' }],
    });
  });

  it('embeds', async () => {
    const answer = await ollama.embed({ model: 'embed-test', input: ['a b', 'c'] });
    expect(answer.embeddings).toHaveLength(2);
    expect(answer.prompt_eval_count).toBe(3);
  });

  it.each([
    ['rate_limit', 429],
    ['overloaded', 503],
    ['context_length', 400],
    ['bad_request', 404],
    ['auth', 401],
  ] as const)('fails with %s as Ollama says it (%i)', async (failure, status) => {
    fake.script({ failure });
    const error: unknown = await ollama
      .chat({ model: 'llama-test', messages: [{ role: 'user', content: 'x' }] })
      .catch((e: unknown) => e);
    expect((error as ResponseError).name).toBe('ResponseError');
    expect((error as ResponseError).status_code).toBe(status);
  });

  it('refuses a missing key', async () => {
    const anonymous = new Ollama({ host: fake.baseUrl });
    const error: unknown = await anonymous.chat({ model: 'm', messages: [] }).catch((e: unknown) => e);
    expect((error as ResponseError).status_code).toBe(401);
    expect((error as ResponseError).error).toBe('unauthorized');
  });
});
