// One contract for every provider of a vendor's native API, run against the vendor's fake over real HTTP: text with
// the system prompt and sampling fields, a stream, parallel tool calls and their results sent back, an image, the
// output limit, usage, each refusal as its reason (never quoting the vendor), and embeddings.
import type {
  FakeVendorUpstream,
  StartFakeVendor,
  VendorFailure,
} from '#testing/fake-vendors/vendor-upstream';
import type { ProviderType } from '../model.js';
import { ModelRegistry } from '../model-registry.js';
import type { ChatDelta, ChatRequest, ModelProvider } from '../provider.port.js';

export interface VendorUnderTest {
  readonly type: ProviderType;
  readonly start: StartFakeVendor;
  readonly provider: (registry: ModelRegistry) => ModelProvider & { close(): Promise<void> };
  readonly chatModelId: string;
  readonly embeddingModelId: string;
  /** The status each refusal comes with from this vendor. */
  readonly failureStatus: Readonly<Record<VendorFailure, number>>;
  /** Words of the vendor's error messages, which must never reach our errors. */
  readonly vendorWords: RegExp;
  /** What the vendor's view says a tool result answers: the call's id, or (Ollama) the function's name. */
  readonly answers: (call: { id: string; name: string }) => string;
}

export interface VendorSubject {
  readonly fake: FakeVendorUpstream;
  readonly registry: ModelRegistry;
  readonly provider: ModelProvider;
  readonly key: string;
  ask(request?: Partial<ChatRequest>): ChatRequest;
  streamed(request: ChatRequest): Promise<ChatDelta[]>;
}

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAAB';
const signal = () => new AbortController().signal;
const weather = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, additionalProperties: false },
  },
};

/** Runs the contract for `vendor`; `more` adds the vendor's own tests, given the subject once started. */
export function vendorProviderContract(
  vendor: VendorUnderTest,
  more?: (subject: () => VendorSubject) => void,
): void {
  describe(`${vendor.type} provider (against its fake vendor)`, () => {
    let subject: VendorSubject;
    let close: () => Promise<void>;
    beforeAll(async () => {
      const key = `${vendor.type}-secret`;
      const fake = await vendor.start({ apiKey: key });
      const registry = ModelRegistry.build(
        {
          providers: {
            up: { type: vendor.type, baseUrl: fake.baseUrl, apiKeyEnv: 'VENDOR_KEY', timeoutMs: 30_000 },
          },
          models: [
            { key: 'chat', modelId: vendor.chatModelId, provider: 'up', kind: 'chat' },
            { key: 'embed', modelId: vendor.embeddingModelId, provider: 'up', kind: 'embedding' },
          ],
        },
        {
          hostingRegion: 'local',
          upstreamTimeoutMs: 1000,
          defaultChatModelOverride: undefined,
          secret: (name) => (name === 'VENDOR_KEY' ? key : undefined),
        },
      );
      const provider = vendor.provider(registry);
      close = async () => {
        await provider.close();
        await fake.close();
      };
      subject = {
        fake,
        registry,
        provider,
        key,
        ask: (request = {}) => ({ messages: [{ role: 'user', content: 'hello there' }], ...request }),
        streamed: async (request) => {
          const deltas: ChatDelta[] = [];
          for await (const delta of provider.chatStream(registry.get('chat')!, request, signal()))
            deltas.push(delta);
          return deltas;
        },
      };
    });
    afterEach(() => subject.fake.script({}));
    afterAll(() => close());
    const chat = () => subject.registry.get('chat')!;

    it('answers text with the system prompt, the sampling fields and usage', async () => {
      subject.fake.script({ usage: { input: 30, output: 4 } });
      const result = await subject.provider.chat(
        chat(),
        subject.ask({
          messages: [
            { role: 'system', content: 'be brief' },
            { role: 'user', content: 'hello there' },
          ],
          max_completion_tokens: 50,
          temperature: 0.2,
          stop: 'END',
        }),
        signal(),
      );
      expect(result).toEqual({
        message: { role: 'assistant', content: 'Echo: hello there', refusal: null },
        finishReason: 'stop',
        usage: { inputTokens: 30, cachedInputTokens: 0, outputTokens: 4 },
      });
      expect(subject.fake.requests.at(-1)).toMatchObject({
        model: vendor.chatModelId,
        stream: false,
        system: 'be brief',
        userTexts: ['hello there'],
        maxTokens: 50,
        temperature: 0.2,
        stopSequences: ['END'],
      });
    });

    it('streams text in pieces, then the stop and the usage', async () => {
      subject.fake.script({ text: 'one two three', usage: { input: 6, output: 3 } });
      const deltas = await subject.streamed(subject.ask());
      expect(deltas.map((delta) => delta.delta.content ?? '').join('')).toBe('one two three');
      expect(deltas.filter((delta) => delta.delta.content).length).toBe(3);
      expect(deltas.at(-1)).toEqual({
        delta: {},
        finishReason: 'stop',
        usage: { inputTokens: 6, cachedInputTokens: 0, outputTokens: 3 },
      });
      expect(subject.fake.requests.at(-1)!.stream).toBe(true);
    });

    it('answers parallel tool calls, whole and streamed, and sends their results back', async () => {
      subject.fake.script({
        toolCalls: [
          { name: 'get_weather', arguments: { city: 'Paris' } },
          { name: 'get_weather', arguments: { city: 'Rome' } },
        ],
      });
      const result = await subject.provider.chat(chat(), subject.ask({ tools: [weather] }), signal());
      expect(result.finishReason).toBe('tool_calls');
      const calls = result.message.tool_calls as {
        id: string;
        function: { name: string; arguments: string };
      }[];
      expect(calls.map((call) => JSON.parse(call.function.arguments))).toEqual([
        { city: 'Paris' },
        { city: 'Rome' },
      ]);
      expect(new Set(calls.map((call) => call.id)).size).toBe(2);
      expect(subject.fake.requests.at(-1)!.tools).toEqual(['get_weather']);
      const deltas = await subject.streamed(subject.ask({ tools: [weather] }));
      expect(deltas.flatMap((delta) => delta.delta.tool_calls ?? []).map((call) => call.index)).toEqual([
        0, 1,
      ]);
      expect(deltas.at(-1)!.finishReason).toBe('tool_calls');
      subject.fake.script({ text: 'Sunny in both' });
      const answer = await subject.provider.chat(
        chat(),
        subject.ask({
          tools: [weather],
          messages: [
            { role: 'user', content: 'weather in Paris and Rome?' },
            result.message as ChatRequest['messages'][number],
            { role: 'tool', tool_call_id: calls[0]!.id, content: 'sunny' },
            { role: 'tool', tool_call_id: calls[1]!.id, content: 'rainy' },
          ],
        }),
        signal(),
      );
      expect(answer.message.content).toBe('Sunny in both');
      expect(subject.fake.requests.at(-1)!.toolResults).toEqual(
        calls.map((call, index) => ({
          callId: vendor.answers({ id: call.id, name: call.function.name }),
          text: ['sunny', 'rainy'][index],
        })),
      );
    });

    it('sends a data-URL image', async () => {
      const content = [
        { type: 'text' as const, text: 'what is this?' },
        { type: 'image_url' as const, image_url: { url: `data:image/png;base64,${PNG}` } },
      ];
      await subject.provider.chat(chat(), subject.ask({ messages: [{ role: 'user', content }] }), signal());
      expect(subject.fake.requests.at(-1)).toMatchObject({
        userTexts: ['what is this?'],
        images: [{ mediaType: 'image/png', bytes: PNG.length }],
      });
    });

    it('reads the output limit as length', async () => {
      subject.fake.script({ stop: 'length' });
      expect((await subject.provider.chat(chat(), subject.ask(), signal())).finishReason).toBe('length');
      expect((await subject.streamed(subject.ask())).at(-1)!.finishReason).toBe('length');
    });

    it.each(Object.keys(vendor.failureStatus) as VendorFailure[])(
      'maps %s to its reason, whole and streamed, never quoting the vendor',
      async (failure) => {
        subject.fake.script({ failure });
        for (const call of [
          subject.provider.chat(chat(), subject.ask(), signal()),
          subject.streamed(subject.ask()),
        ]) {
          const error = (await call.catch((e: unknown) => e)) as Record<string, unknown>;
          expect(error).toMatchObject({
            kind: 'rejected',
            upstreamStatus: vendor.failureStatus[failure],
            reason: failure,
          });
          expect(error.message).not.toMatch(vendor.vendorWords);
        }
      },
    );

    it('embeds texts in order, and refuses token ids', async () => {
      const embed = subject.registry.get('embed')!;
      const result = await subject.provider.embed(embed, ['alpha beta', 'gamma'], signal());
      expect(result.vectors).toHaveLength(2);
      expect(result.vectors[0]).not.toEqual(result.vectors[1]);
      expect(result.inputTokens).toBeGreaterThan(0);
      expect(subject.fake.requests.at(-1)).toMatchObject({
        model: vendor.embeddingModelId,
        userTexts: ['alpha beta', 'gamma'],
      });
      await expect(subject.provider.embed(embed, [[1, 2]], signal())).rejects.toMatchObject({
        code: 'unsupported_input',
      });
    });

    more?.(() => subject);
  });
}
