// The fake Gemini API must speak the wire the official `@google/genai` SDK expects, so the SDK drives it here: text
// and function calls, whole and streamed, usage, embeddings, and Google's error envelope.
import { ApiError, FunctionCallingConfigMode, GoogleGenAI } from '@google/genai';
import { startFakeGoogle } from './google.js';
import type { FakeVendorUpstream } from './vendor-upstream.js';

describe('fake Gemini API (driven by @google/genai)', () => {
  let fake: FakeVendorUpstream;
  let ai: GoogleGenAI;

  beforeAll(async () => {
    fake = await startFakeGoogle({ apiKey: 'g-key' });
    ai = new GoogleGenAI({
      apiKey: 'g-key',
      httpOptions: { baseUrl: fake.baseUrl.replace(/\/v1beta$/, '') },
    });
  });
  afterEach(() => fake.script({}));
  afterAll(() => fake.close());

  const weather = {
    functionDeclarations: [
      {
        name: 'get_weather',
        parametersJsonSchema: { type: 'object', properties: { city: { type: 'string' } } },
      },
    ],
  };

  it('answers text with usage, and reads the request back (system, texts, config, the key header)', async () => {
    fake.script({ usage: { input: 20, output: 3, cacheRead: 8 } });
    const answer = await ai.models.generateContent({
      model: 'gemini-test',
      contents: [{ role: 'user', parts: [{ text: 'hello there' }] }],
      config: {
        systemInstruction: 'be brief',
        maxOutputTokens: 50,
        temperature: 0.3,
        stopSequences: ['END'],
      },
    });
    expect(answer.text).toBe('Echo: hello there');
    expect(answer.candidates?.[0]?.finishReason).toBe('STOP');
    expect(answer.usageMetadata).toMatchObject({
      promptTokenCount: 20,
      cachedContentTokenCount: 8,
      candidatesTokenCount: 3,
    });
    expect(fake.requests.at(-1)).toMatchObject({
      model: 'gemini-test',
      stream: false,
      system: 'be brief',
      userTexts: ['hello there'],
      maxTokens: 50,
      temperature: 0.3,
      stopSequences: ['END'],
    });
    expect(fake.requests.at(-1)!.headers['x-goog-api-key']).toBe('g-key');
  });

  it('answers parallel function calls, whole and streamed', async () => {
    fake.script({
      toolCalls: [
        { name: 'get_weather', arguments: { city: 'Paris' } },
        { name: 'get_weather', arguments: { city: 'Rome' } },
      ],
    });
    const answer = await ai.models.generateContent({
      model: 'gemini-test',
      contents: 'weather in Paris and Rome?',
      config: {
        tools: [weather],
        toolConfig: { functionCallingConfig: { mode: FunctionCallingConfigMode.AUTO } },
      },
    });
    expect(answer.functionCalls?.map((call) => call.args)).toEqual([{ city: 'Paris' }, { city: 'Rome' }]);
    expect(answer.candidates?.[0]?.content?.parts?.[0]?.thoughtSignature).toEqual(expect.any(String));
    expect(fake.requests.at(-1)!.tools).toEqual(['get_weather']);
    const calls = [];
    for await (const chunk of await ai.models.generateContentStream({
      model: 'gemini-test',
      contents: 'weather?',
      config: { tools: [weather] },
    }))
      calls.push(...(chunk.functionCalls ?? []));
    expect(calls.map((call) => call.name)).toEqual(['get_weather', 'get_weather']);
    expect(fake.requests.at(-1)!.stream).toBe(true);
  });

  it('streams text in pieces over SSE, the finish and whole usage in the last chunk', async () => {
    fake.script({ text: 'one two three', stop: 'length', usage: { input: 5, output: 3 } });
    let text = '';
    let last;
    for await (const chunk of await ai.models.generateContentStream({
      model: 'gemini-test',
      contents: 'count',
    })) {
      text += chunk.text ?? '';
      last = chunk;
    }
    expect(text).toBe('one two three');
    expect(last!.candidates?.[0]?.finishReason).toBe('MAX_TOKENS');
    expect(last!.usageMetadata).toMatchObject({ promptTokenCount: 5, candidatesTokenCount: 3 });
  });

  it('takes a function result back, named and with its id', async () => {
    await ai.models.generateContent({
      model: 'gemini-test',
      contents: [
        { role: 'user', parts: [{ text: 'weather?' }] },
        {
          role: 'model',
          parts: [{ functionCall: { id: 'c1', name: 'get_weather', args: { city: 'Paris' } } }],
        },
        {
          role: 'user',
          parts: [{ functionResponse: { id: 'c1', name: 'get_weather', response: { result: 'sunny' } } }],
        },
      ],
    });
    expect(fake.requests.at(-1)!.toolResults).toEqual([{ callId: 'c1', text: 'sunny' }]);
  });

  it('embeds a batch', async () => {
    const answer = await ai.models.embedContent({ model: 'text-embedding-test', contents: ['a', 'b'] });
    expect(answer.embeddings).toHaveLength(2);
    expect(answer.embeddings?.[0]?.values).toHaveLength(8);
    expect(answer.embeddings?.[0]?.values).not.toEqual(answer.embeddings?.[1]?.values);
  });

  it.each([
    ['rate_limit', 429, 'RESOURCE_EXHAUSTED'],
    ['overloaded', 503, 'UNAVAILABLE'],
    ['context_length', 400, 'INVALID_ARGUMENT'],
    ['auth', 400, 'INVALID_ARGUMENT'],
  ] as const)('fails with %s as Google says it (%i %s)', async (failure, status, code) => {
    fake.script({ failure, retryAfterSeconds: 7 });
    const error: unknown = await ai.models
      .generateContent({ model: 'gemini-test', contents: 'x' })
      .catch((e) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(status);
    expect((error as ApiError).message).toContain(code);
  });

  it('refuses a wrong key as Google does', async () => {
    const wrong = new GoogleGenAI({
      apiKey: 'nope',
      httpOptions: { baseUrl: fake.baseUrl.replace(/\/v1beta$/, '') },
    });
    const error: unknown = await wrong.models
      .generateContent({ model: 'gemini-test', contents: 'x' })
      .catch((e) => e);
    expect((error as ApiError).status).toBe(400);
    expect((error as ApiError).message).toContain('API_KEY_INVALID');
  });
});
