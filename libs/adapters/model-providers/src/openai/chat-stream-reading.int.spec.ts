// How a streamed chat call reads its upstream's body: events cut anywhere between two reads (even inside a UTF-8
// character) arrive whole, the deltas an upstream sent before an error event in the same read are passed on before the
// call fails, a body that ends without `[DONE]` ends the stream with what it carried, and nothing after `[DONE]` is
// passed on. The upstream is a plain HTTP server that writes the given pieces of body text one after the other.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { ModelRegistry } from '../model-registry.js';
import { UpstreamError, type ChatDelta } from '../provider.port.js';
import { OpenAiCompatibleProvider } from './openai-compatible.provider.js';

const chunk = (content: string, finish: string | null = null) =>
  `data: ${JSON.stringify({
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'm',
    choices: [{ index: 0, delta: { content }, finish_reason: finish }],
  })}\n\n`;

describe('a streamed chat call reading its upstream body', () => {
  let server: Server;
  let provider: OpenAiCompatibleProvider;
  let registry: ModelRegistry;
  /** The body the upstream sends, in these pieces (each its own write, a moment apart). */
  let pieces: (string | Buffer)[] = [];

  beforeAll(async () => {
    server = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        void (async () => {
          for (const piece of pieces) {
            response.write(piece);
            await sleep(10);
          }
          response.end();
        })();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    registry = ModelRegistry.build(
      {
        providers: { up: { baseUrl: `http://127.0.0.1:${port}/v1`, timeoutMs: 30_000 } },
        models: [{ key: 'chat', modelId: 'm', provider: 'up', kind: 'chat' }],
      },
      {
        hostingRegion: 'local',
        upstreamTimeoutMs: 30_000,
        defaultChatModelOverride: undefined,
        secret: () => undefined,
      },
    );
    provider = new OpenAiCompatibleProvider(registry);
  });
  afterAll(async () => {
    await provider.close();
    await new Promise((resolve) => server.close(resolve));
  });

  /** The deltas read, and what ended the stream (undefined: it ended well). */
  const read = async () => {
    const deltas: ChatDelta[] = [];
    let error: unknown;
    try {
      for await (const delta of provider.chatStream(
        registry.get('chat')!,
        { messages: [{ role: 'user', content: 'hi' }] },
        new AbortController().signal,
      ))
        deltas.push(delta);
    } catch (failure) {
      error = failure;
    }
    return { text: deltas.map((delta) => delta.delta.content ?? '').join(''), deltas, error };
  };

  it('reads events cut anywhere between two reads, a UTF-8 character included', async () => {
    const body = Buffer.from(chunk('Grüß ') + chunk('dich', 'stop') + 'data: [DONE]\n\n');
    // Inside `ü` (two bytes), inside the second event's JSON, and inside `[DONE]`.
    const cuts = [body.indexOf('ü') + 1, body.indexOf('dich') + 2, body.length - 5];
    pieces = [0, ...cuts].map((start, i) => body.subarray(start, [...cuts, body.length][i]));
    const { text, deltas, error } = await read();
    expect(error).toBeUndefined();
    expect(text).toBe('Grüß dich');
    expect(deltas.at(-1)!.finishReason).toBe('stop');
  });

  it('passes on the deltas before an error event of the same read, then fails the call', async () => {
    pieces = [chunk('one ') + chunk('two ') + `data: ${JSON.stringify({ error: { message: 'boom' } })}\n\n`];
    const { text, error } = await read();
    expect(text).toBe('one two ');
    expect(error).toBeInstanceOf(UpstreamError);
    expect((error as UpstreamError).kind).toBe('rejected');
  });

  it('ends the stream with what the body carried when it ends without [DONE]', async () => {
    pieces = [chunk('all '), chunk('there', 'stop')];
    const { text, error } = await read();
    expect(error).toBeUndefined();
    expect(text).toBe('all there');
  });

  it('passes nothing on after [DONE]', async () => {
    pieces = [chunk('said', 'stop') + 'data: [DONE]\n\n' + chunk(' more')];
    const { text, error } = await read();
    expect(error).toBeUndefined();
    expect(text).toBe('said');
  });
});
