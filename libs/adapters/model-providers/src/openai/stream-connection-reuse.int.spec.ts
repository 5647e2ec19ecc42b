// A streamed chat call keeps its upstream connection: an upstream that says `[DONE]` and ends its body a moment later
// (as servers that flush each event do) serves the next call on the same connection, while one that never ends its
// body after `[DONE]` still ends the stream for the caller at once and has its connection closed shortly after. The
// upstream is a plain HTTP server here: only how it ends its bodies and how many connections it sees matter.
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { ModelRegistry } from '../model-registry.js';
import { OpenAiCompatibleProvider } from './openai-compatible.provider.js';

const chunk = (content: string, finish: string | null) =>
  `data: ${JSON.stringify({
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'm',
    choices: [{ index: 0, delta: { content }, finish_reason: finish }],
  })}\n\n`;

describe('a streamed chat call and its upstream connection', () => {
  let server: Server;
  let provider: OpenAiCompatibleProvider;
  let registry: ModelRegistry;
  const sockets: Socket[] = [];
  /** How the upstream ends a body after `[DONE]`. */
  let ending: (response: ServerResponse) => void;
  /** Settles when the upstream has written the end of its latest body. */
  let ended: Promise<void> = Promise.resolve();

  beforeAll(async () => {
    server = createServer((request, response) => {
      request.resume();
      ended = new Promise((resolve) => response.once('finish', () => resolve()));
      request.on('end', () => {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.write(chunk('Hel', null));
        response.write(chunk('lo', 'stop'));
        response.write('data: [DONE]\n\n');
        ending(response);
      });
    });
    server.on('connection', (socket: Socket) => sockets.push(socket));
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
  beforeEach(() => {
    for (const socket of sockets.splice(0)) socket.destroy();
  });
  afterAll(async () => {
    await provider.close();
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });

  const streamed = async () => {
    let text = '';
    for await (const piece of provider.chatStream(
      registry.get('chat')!,
      { messages: [{ role: 'user', content: 'hi' }] },
      new AbortController().signal,
    ))
      text += piece.delta.content ?? '';
    return text;
  };

  it('serves the next call on the same connection when the body ends a moment after [DONE]', async () => {
    ending = (response) => setTimeout(() => response.end(), 20);
    for (let call = 0; call < 3; call++) {
      expect(await streamed()).toBe('Hello');
      // The next call starts once the previous body has ended upstream, and a while after for the client to read
      // that end and pool the connection (a fixed 60 ms from [DONE] was once too short on a loaded machine).
      await ended;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(sockets.length).toBe(1);
  });

  it('ends the stream at [DONE] for the caller when the body never ends, and closes that connection', async () => {
    ending = () => undefined;
    expect(await streamed()).toBe('Hello');
    expect(sockets.length).toBe(1);
    const closed = new Promise<void>((resolve) => sockets[0]!.once('close', () => resolve()));
    await closed;
    expect(sockets[0]!.destroyed).toBe(true);
  });
});
