// Clients that stop reading a stream: the gateway stops pulling from the upstream while the client does not drain
// (backpressure end to end), closes a client that has read nothing for the stall timeout, and frees the stream then
// (the upstream call is aborted, the open-streams gauge is back to 0). Observed from the fake upstream, which counts the
// chunks it managed to write and the requests whose connection was closed; no timing is asserted.
import { connect, type Socket } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startFakeUpstream, type FakeUpstream } from '#testing/fake-openai-upstream';
import { waitUntil } from '#testing/fixtures';
import { ADMIN_KEY, startTestApi, tempDataDir, type TestApi } from './support/api.js';

const WORDS = 200_000;

describe('stalled stream readers (e2e)', () => {
  let api: TestApi;
  let upstream: FakeUpstream;

  beforeAll(async () => {
    upstream = await startFakeUpstream({ reply: 'word '.repeat(WORDS) });
    const modelsFile = join(tempDataDir(), 'models.yaml');
    writeFileSync(
      modelsFile,
      `models:\n  - { key: long-chat, modelId: fake-model, provider: fake, baseUrl: '${upstream.url}', kind: chat }\n`,
    );
    api = await startTestApi({ MODELS_FILE: modelsFile, STREAM_STALL_TIMEOUT_MS: '4000' });
  });
  afterAll(async () => {
    await api.close();
    await upstream.close();
  });

  /** Sends a streamed chat on a raw socket and never reads the answer. */
  const stalledClient = (model: string, content = 'talk'): Socket => {
    const body = JSON.stringify({ model, messages: [{ role: 'user', content }], stream: true });
    const socket = connect({ host: '127.0.0.1', port: Number(new URL(api.url).port) });
    socket.on('error', () => undefined);
    socket.write(
      `POST /api/compat/v1/chat/completions HTTP/1.1\r\nhost: x\r\nx-api-key: ${ADMIN_KEY}\r\n` +
        `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    socket.pause();
    return socket;
  };

  const openStreams = async (): Promise<number> => {
    const text = await (await fetch(`${api.url}/metrics`)).text();
    return Number(/^chat_streams_open (\d+)/m.exec(text)?.[1] ?? NaN);
  };

  /** Resolves once the upstream has written nothing more for a while: the gateway stopped pulling. */
  const upstreamSettled = async (): Promise<number> => {
    let last = -1;
    await waitUntil(async () => {
      const now = upstream.chunksWritten;
      const settled = now === last && now > 0;
      last = now;
      await new Promise((resolve) => setTimeout(resolve, 200));
      return settled;
    }, 20_000);
    return last;
  };

  it('pulls only a bounded part of a long upstream stream while the client reads nothing, then frees it', async () => {
    upstream.reset();
    const client = stalledClient('long-chat');
    // The whole answer is 200,000 chunks; what the sockets' buffers hold is a small part of it.
    expect(await upstreamSettled()).toBeLessThan(WORDS / 4);
    // The client read nothing for the stall timeout: disconnected, the upstream call aborted, the stream freed.
    await waitUntil(() => upstream.aborted === 1, 20_000);
    await waitUntil(async () => (await openStreams()) === 0, 20_000);
    // Bounded to the end: what the socket buffers took, never the rest of the answer.
    expect(upstream.chunksWritten).toBeLessThan(WORDS / 4);
    client.destroy();
  });

  it('frees a stream as soon as a stalled client goes away', async () => {
    upstream.reset();
    const clients = Array.from({ length: 5 }, () => stalledClient('long-chat'));
    await waitUntil(async () => (await openStreams()) === 5, 20_000);
    for (const client of clients) client.destroy();
    await waitUntil(() => upstream.aborted === 5, 20_000);
    await waitUntil(async () => (await openStreams()) === 0, 20_000);
  });

  it('applies the same to the offline model: a stalled stream is closed and counted out', async () => {
    // The offline model quotes the message: 150,000 words to stream.
    const client = stalledClient('offline-chat', 'talk '.repeat(150_000));
    await waitUntil(async () => (await openStreams()) === 1, 20_000);
    await waitUntil(async () => (await openStreams()) === 0, 20_000);
    client.destroy();
  });
});
