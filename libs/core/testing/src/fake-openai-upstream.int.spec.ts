// The fake upstream must speak the wire format the real `openai` SDK expects, so it is driven by the SDK here.
import OpenAI, { APIError } from 'openai';
import { startFakeUpstream, type FakeUpstream } from './fake-openai-upstream.js';
import { waitUntil } from './fixtures.js';

/**
 * Under Jest's vm realm, undici's abort `DOMException` is not `instanceof Error`, so the SDK's `castToError`
 * drops its name and reports a timeout as a plain `APIConnectionError` (outside Jest it is
 * `APIConnectionTimeoutError`). Re-throwing fetch failures as errors of this realm restores the SDK's view.
 */
const sameRealmFetch: typeof fetch = (input, init) =>
  fetch(input, init).catch((error: unknown) => {
    if (error instanceof Error) throw error;
    const { name, message } = error as { name?: string; message?: string };
    throw Object.assign(new Error(message), { name, cause: error });
  });

describe('fake OpenAI-compatible upstream', () => {
  let fake: FakeUpstream;
  let client: OpenAI;

  beforeAll(async () => {
    fake = await startFakeUpstream();
    client = new OpenAI({ baseURL: fake.url, apiKey: 'test', maxRetries: 0 });
  });
  afterEach(() => fake.reset());
  afterAll(() => fake.close());

  const user = (content: string) => [{ role: 'user' as const, content }];

  it('listens on 127.0.0.1 under /v1', () => {
    expect(fake.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
  });

  it('answers a non-stream chat completion and records the request', async () => {
    const completion = await client.chat.completions.create({
      model: 'gpt-test',
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'hello there' },
      ],
    });

    expect(completion.object).toBe('chat.completion');
    expect(completion.id).toMatch(/^chatcmpl-/);
    expect(typeof completion.created).toBe('number');
    expect(completion.model).toBe('gpt-test');
    expect(completion.choices[0]?.message).toMatchObject({ role: 'assistant', content: 'Echo: hello there' });
    expect(completion.choices[0]?.finish_reason).toBe('stop');
    expect(completion.usage).toMatchObject({
      prompt_tokens: 4,
      completion_tokens: 3,
      total_tokens: 7,
      prompt_tokens_details: { cached_tokens: 0 },
    });

    expect(fake.requests).toHaveLength(1);
    const [request] = fake.requests;
    expect(request).toMatchObject({ method: 'POST', path: '/v1/chat/completions' });
    expect(request?.headers.authorization).toBe('Bearer test');
    expect(request?.body).toMatchObject({
      model: 'gpt-test',
      messages: [{ role: 'system' }, { role: 'user' }],
    });
  });

  it('counts the prompt in whitespace-separated words, Unicode spaces and runs of them included', async () => {
    const completion = await client.chat.completions.create({
      model: 'gpt-test',
      messages: [
        { role: 'system', content: '  one\ttwo\n\nthree\u00a0four\u3000five\u2028six\ufeffseven  ' },
        { role: 'user', content: 'eight-nine 😀ten' },
      ],
    });
    expect(completion.usage?.prompt_tokens).toBe(9);
  });

  it('uses the configured reply and usage override', async () => {
    fake.set({
      reply: 'fixed answer',
      usage: { prompt_tokens: 100, completion_tokens: 7, prompt_tokens_details: { cached_tokens: 64 } },
    });
    const completion = await client.chat.completions.create({ model: 'm', messages: user('x') });
    expect(completion.choices[0]?.message.content).toBe('fixed answer');
    expect(completion.usage).toMatchObject({
      prompt_tokens: 100,
      completion_tokens: 7,
      total_tokens: 107,
      prompt_tokens_details: { cached_tokens: 64 },
    });
  });

  it('streams content chunks, a final usage chunk when asked, and [DONE]', async () => {
    const stream = await client.chat.completions.create({
      model: 'gpt-stream',
      messages: user('one two three'),
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);

    expect(
      chunks.every((chunk) => chunk.object === 'chat.completion.chunk' && chunk.model === 'gpt-stream'),
    ).toBe(true);
    expect(new Set(chunks.map((chunk) => chunk.id)).size).toBe(1);
    expect(chunks[0]?.choices[0]?.delta.role).toBe('assistant');
    const content = chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');
    expect(content).toBe('Echo: one two three');
    // role chunk + one chunk per word + finish chunk + usage chunk
    expect(chunks).toHaveLength(1 + 4 + 1 + 1);
    const finish = chunks.at(-2);
    expect(finish?.choices[0]?.finish_reason).toBe('stop');
    const last = chunks.at(-1);
    expect(last?.choices).toEqual([]);
    expect(last?.usage).toMatchObject({ prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 });
    expect(chunks.slice(0, -1).every((chunk) => chunk.usage === null)).toBe(true);
  });

  it('streams without a usage chunk unless include_usage, split into streamChunks pieces', async () => {
    fake.set({ reply: 'abcdefghij', streamChunks: 3 });
    const stream = await client.chat.completions.create({ model: 'm', messages: user('x'), stream: true });
    const pieces: string[] = [];
    let finishReason: string | null | undefined;
    for await (const chunk of stream) {
      expect(chunk.choices).toHaveLength(1);
      const delta = chunk.choices[0]?.delta.content;
      if (delta) pieces.push(delta);
      finishReason = chunk.choices[0]?.finish_reason ?? finishReason;
    }
    expect(pieces).toEqual(['abc', 'def', 'ghij']);
    expect(finishReason).toBe('stop');
  });

  it('answers a tool call without streaming', async () => {
    fake.set({ toolCall: { name: 'get_weather', arguments: { city: 'Paris', unit: 'c' } } });
    const completion = await client.chat.completions.create({
      model: 'm',
      messages: user('weather?'),
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }],
    });
    const choice = completion.choices[0];
    expect(choice?.finish_reason).toBe('tool_calls');
    expect(choice?.message.content).toBeNull();
    const call = choice?.message.tool_calls?.[0];
    expect(call?.type).toBe('function');
    expect(call?.id).toMatch(/^call_/);
    if (call?.type !== 'function') throw new Error('expected a function tool call');
    expect(call.function.name).toBe('get_weather');
    expect(JSON.parse(call.function.arguments)).toEqual({ city: 'Paris', unit: 'c' });
  });

  it('scripts a tool loop with a toolCall function: a call first, text once the tool result is sent', async () => {
    fake.set({
      toolCall: (request) => {
        const { messages } = request.body as { messages: { role: string }[] };
        return messages.at(-1)?.role === 'tool' ? undefined : { name: 'search', arguments: { query: 'x' } };
      },
      reply: 'from the tool',
    });
    const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = user('find x');
    const first = await client.chat.completions.create({ model: 'm', messages });
    const call = first.choices[0]?.message.tool_calls?.[0];
    if (call?.type !== 'function') throw new Error('expected a function tool call');
    expect(first.choices[0]?.finish_reason).toBe('tool_calls');
    expect(JSON.parse(call.function.arguments)).toEqual({ query: 'x' });

    const followUp = [
      ...messages,
      first.choices[0]!.message,
      { role: 'tool' as const, tool_call_id: call.id, content: 'found x' },
    ];
    const second = await client.chat.completions.create({ model: 'm', messages: followUp });
    expect(second.choices[0]?.finish_reason).toBe('stop');
    expect(second.choices[0]?.message).toMatchObject({ content: 'from the tool' });
    expect(second.choices[0]?.message.tool_calls).toBeUndefined();

    const streamed = await client.chat.completions.create({ model: 'm', messages: followUp, stream: true });
    let content = '';
    for await (const chunk of streamed) content += chunk.choices[0]?.delta.content ?? '';
    expect(content).toBe('from the tool');
  });

  it('streams a tool call in the incremental delta format', async () => {
    const args = { query: 'a fairly long search string', limit: 10 };
    fake.set({ toolCall: { name: 'search', arguments: args } });
    const stream = await client.chat.completions.create({ model: 'm', messages: user('find'), stream: true });
    let id: string | undefined;
    let name = '';
    let argumentText = '';
    let argumentChunks = 0;
    let finishReason: string | null | undefined;
    for await (const chunk of stream) {
      for (const toolCall of chunk.choices[0]?.delta.tool_calls ?? []) {
        expect(toolCall.index).toBe(0);
        id ??= toolCall.id;
        name += toolCall.function?.name ?? '';
        if (toolCall.function?.arguments) argumentChunks += 1;
        argumentText += toolCall.function?.arguments ?? '';
      }
      finishReason = chunk.choices[0]?.finish_reason ?? finishReason;
    }
    expect(id).toMatch(/^call_/);
    expect(name).toBe('search');
    expect(argumentChunks).toBeGreaterThan(1);
    expect(JSON.parse(argumentText)).toEqual(args);
    expect(finishReason).toBe('tool_calls');
  });

  it("passes the SDK's own stream accumulator (chat.completions.stream) for a tool call", async () => {
    fake.set({ toolCall: { name: 'lookup', arguments: '{"id":42}' }, streamChunks: 4 });
    const runner = client.chat.completions.stream({ model: 'm', messages: user('look') });
    const final = await runner.finalChatCompletion();
    const call = final.choices[0]?.message.tool_calls?.[0];
    if (call?.type !== 'function') throw new Error('expected a function tool call');
    expect(call.function).toMatchObject({ name: 'lookup', arguments: '{"id":42}' });
    expect(final.choices[0]?.finish_reason).toBe('tool_calls');
  });

  it('returns deterministic float embeddings and the same values as base64 (decoded by the SDK)', async () => {
    const input = ['alpha', 'beta gamma'];
    const floats = await client.embeddings.create({ model: 'emb', input, encoding_format: 'float' });
    // Without encoding_format the SDK asks for base64 and decodes it to floats itself.
    const decoded = await client.embeddings.create({ model: 'emb', input });
    const base64 = await client.embeddings.create({ model: 'emb', input, encoding_format: 'base64' });

    expect(
      fake.requests.map((request) => (request.body as { encoding_format: string }).encoding_format),
    ).toEqual(['float', 'base64', 'base64']);
    expect(floats.object).toBe('list');
    expect(floats.model).toBe('emb');
    expect(floats.data.map((item) => item.index)).toEqual([0, 1]);
    expect(floats.data[0]?.embedding).toHaveLength(8);
    expect(floats.data[0]?.embedding).not.toEqual(floats.data[1]?.embedding);
    const norm = Math.hypot(...(floats.data[0]?.embedding ?? []));
    expect(norm).toBeCloseTo(1, 5);
    expect(floats.usage).toEqual({ prompt_tokens: 3, total_tokens: 3 });

    expect(decoded.data.map((item) => item.embedding)).toEqual(floats.data.map((item) => item.embedding));
    const raw = base64.data[0]?.embedding as unknown as string;
    expect(typeof raw).toBe('string');
    const buffer = Buffer.from(raw, 'base64');
    const manual = Array.from({ length: buffer.length / 4 }, (_, i) => buffer.readFloatLE(i * 4));
    expect(manual).toEqual(floats.data[0]?.embedding);

    const again = await client.embeddings.create({ model: 'emb', input: 'alpha', encoding_format: 'float' });
    expect(again.data[0]?.embedding).toEqual(floats.data[0]?.embedding);
  });

  it('honours dimensions on embeddings', async () => {
    const result = await client.embeddings.create({ model: 'emb', input: 'x', dimensions: 20 });
    expect(result.data[0]?.embedding).toHaveLength(20);
    fake.set({ embeddingDimensions: 3 });
    const fallback = await client.embeddings.create({ model: 'emb', input: 'x' });
    expect(fallback.data[0]?.embedding).toHaveLength(3);
  });

  it('lists models', async () => {
    fake.set({ models: ['m-1', 'm-2'] });
    const ids: string[] = [];
    for await (const model of client.models.list()) ids.push(model.id);
    expect(ids).toEqual(['m-1', 'm-2']);
    await expect(client.models.retrieve('m-2')).resolves.toMatchObject({ id: 'm-2', object: 'model' });
    await expect(client.models.retrieve('nope')).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  });

  it('reranks documents by word overlap', async () => {
    const response = await fetch(`${fake.url}/rerank`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'rr',
        query: 'red apple',
        documents: ['a pear', 'red apple pie', 'apple'],
      }),
    });
    const body = (await response.json()) as { results: { index: number; relevance_score: number }[] };
    expect(body.results).toEqual([
      { index: 1, relevance_score: 1 },
      { index: 2, relevance_score: 0.5 },
      { index: 0, relevance_score: 0 },
    ]);
  });

  it('answers failWith in the OpenAI error envelope (429 → RateLimitError)', async () => {
    fake.set({ failWith: { status: 429 } });
    const error = await client.chat.completions
      .create({ model: 'm', messages: user('x') })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect(error).toMatchObject({ status: 429, code: 'rate_limit_exceeded', type: 'requests' });
    expect((error as APIError).requestID).toMatch(/^req_fake_/);

    fake.set({
      failWith: { status: 400, error: { message: 'bad thing', code: 'bad_code', param: 'messages' } },
    });
    await expect(client.chat.completions.create({ model: 'm', messages: user('x') })).rejects.toMatchObject({
      status: 400,
      message: '400 bad thing',
      code: 'bad_code',
      param: 'messages',
      type: 'invalid_request_error',
    });
  });

  it('fails only failTimes requests, then succeeds', async () => {
    fake.set({ failWith: { status: 503 }, failTimes: 2 });
    const call = () => client.chat.completions.create({ model: 'm', messages: user('x') });
    await expect(call()).rejects.toBeInstanceOf(OpenAI.InternalServerError);
    await expect(call()).rejects.toMatchObject({ status: 503, code: 'service_unavailable' });
    await expect(call()).resolves.toMatchObject({ object: 'chat.completion' });
    expect(fake.behaviour.failWith).toBeUndefined();
    expect(fake.requests).toHaveLength(3);
  });

  it('lets the SDK retry through failTimes when the fake sends retry-after-ms', async () => {
    const retrying = new OpenAI({ baseURL: fake.url, apiKey: 'test', maxRetries: 2 });
    fake.set({ failWith: { status: 500, headers: { 'retry-after-ms': '5' } }, failTimes: 2 });
    const completion = await retrying.chat.completions.create({ model: 'm', messages: user('again') });
    expect(completion.choices[0]?.message.content).toBe('Echo: again');
    expect(fake.requests).toHaveLength(3);
  });

  it('delays the response by latencyMs', async () => {
    fake.set({ latencyMs: 300 });
    const started = performance.now();
    await client.chat.completions.create({ model: 'm', messages: user('slow') });
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
  });

  it('delays stream chunks by chunkDelayMs', async () => {
    fake.set({ chunkDelayMs: 40, reply: 'a b c' });
    const started = performance.now();
    const stream = await client.chat.completions.create({ model: 'm', messages: user('x'), stream: true });
    for await (const _chunk of stream) {
      // drain
    }
    // role, 3 words, finish: 4 delays between 5 chunks
    expect(performance.now() - started).toBeGreaterThanOrEqual(150);
  });

  it('hangs until the SDK times out, and counts the abandoned request as aborted', async () => {
    fake.set({ hang: true });
    const timing = new OpenAI({ baseURL: fake.url, apiKey: 'test', maxRetries: 0, fetch: sameRealmFetch });
    const error = await timing.chat.completions
      .create({ model: 'm', messages: user('x') }, { timeout: 200 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIConnectionTimeoutError);
    expect(fake.requests).toHaveLength(1);
    await waitUntil(() => fake.aborted === 1 && fake.inFlight === 0);
  });

  it('counts a client abort mid-stream', async () => {
    fake.set({ chunkDelayMs: 100, reply: 'many words that take a long time to stream out fully' });
    const controller = new AbortController();
    const stream = await client.chat.completions.create(
      { model: 'm', messages: user('x'), stream: true },
      { signal: controller.signal },
    );
    let received = 0;
    try {
      for await (const chunk of stream) {
        if (chunk.choices[0]?.delta.content) {
          received += 1;
          controller.abort();
        }
      }
    } catch (error) {
      expect(error).toBeInstanceOf(OpenAI.APIUserAbortError);
    }
    expect(received).toBe(1);
    await waitUntil(() => fake.aborted === 1);
    expect(fake.inFlight).toBe(0);
  });

  it('stalls a stream after stallAfterChunks', async () => {
    fake.set({ stallAfterChunks: 2 });
    const controller = new AbortController();
    const stream = await client.chat.completions.create(
      { model: 'm', messages: user('a b c'), stream: true },
      { signal: controller.signal },
    );
    const seen: string[] = [];
    const timer = setTimeout(() => controller.abort(), 300);
    for await (const chunk of stream) seen.push(chunk.choices[0]?.delta.content ?? '');
    clearTimeout(timer);
    expect(seen).toEqual(['', 'Echo:']);
    await waitUntil(() => fake.aborted === 1);
  });

  it('rejects requests without the required api key', async () => {
    fake.set({ requireApiKey: 'secret' });
    await expect(client.chat.completions.create({ model: 'm', messages: user('x') })).rejects.toBeInstanceOf(
      OpenAI.AuthenticationError,
    );
    const authorised = new OpenAI({ baseURL: fake.url, apiKey: 'secret', maxRetries: 0 });
    await expect(
      authorised.chat.completions.create({ model: 'm', messages: user('x') }),
    ).resolves.toBeDefined();
  });

  it('reset clears requests and counters and restores the start behaviour', async () => {
    const other = await startFakeUpstream({ reply: 'start reply' });
    try {
      const local = new OpenAI({ baseURL: other.url, apiKey: 'test', maxRetries: 0 });
      other.set({ reply: 'changed' });
      await local.chat.completions.create({ model: 'm', messages: user('x') });
      expect(other.requests).toHaveLength(1);
      other.reset();
      expect(other.requests).toHaveLength(0);
      const completion = await local.chat.completions.create({ model: 'm', messages: user('x') });
      expect(completion.choices[0]?.message.content).toBe('start reply');
    } finally {
      await other.close();
    }
  });

  it('close() ends hanging requests and stops listening', async () => {
    const other = await startFakeUpstream({ hang: true });
    const local = new OpenAI({ baseURL: other.url, apiKey: 'test', maxRetries: 0 });
    const pending = local.chat.completions
      .create({ model: 'm', messages: user('x') })
      .catch((e: unknown) => e);
    await waitUntil(() => other.inFlight === 1);
    await other.close();
    expect(await pending).toBeInstanceOf(OpenAI.APIConnectionError);
    await expect(fetch(`${other.url}/models`)).rejects.toThrow();
  });
});
