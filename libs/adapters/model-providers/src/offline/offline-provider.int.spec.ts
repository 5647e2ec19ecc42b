import type { ModelConfig, ModelKind } from '../model.js';
import type { ChatDelta } from '../provider.port.js';
import { offlineChat } from './offline-chat.js';
import { offlineEmbed } from './offline-embed.js';
import { offlineRerank } from './offline-rerank.js';
import { OfflineProvider } from './offline-provider.js';

const model = (modelId: string, kind: ModelKind): ModelConfig => ({
  key: modelId,
  modelId,
  displayName: modelId,
  provider: 'offline',
  kind,
  region: 'local',
  securityTier: 'secure',
  locationLabel: 'This machine',
  tags: ['offline'],
  pricing: { input: 0, output: 0 },
  includedUsage: true,
  contextWindow: 8192,
  timeoutMs: 60_000,
});
const signal = () => new AbortController().signal;

describe('Offline provider', () => {
  const provider = new OfflineProvider();
  const request = { messages: [{ role: 'user' as const, content: 'Hello there' }] };

  it('dispatches by method, whatever the model id', async () => {
    for (const id of ['offline-chat', 'my-local-assistant']) {
      expect(await provider.chat(model(id, 'chat'), request, signal())).toEqual(offlineChat(request));
      const deltas: ChatDelta[] = [];
      for await (const delta of provider.chatStream(model(id, 'chat'), request, signal())) deltas.push(delta);
      expect(deltas.map((d) => d.delta.content ?? '').join('')).toBe(offlineChat(request).message.content);
    }
    expect(await provider.embed(model('offline-embed', 'embedding'), ['a', 'b'], signal())).toEqual(
      offlineEmbed(['a', 'b']),
    );
    expect(await provider.rerank(model('offline-rerank', 'rerank'), 'a', ['a', 'b'], signal())).toEqual(
      offlineRerank('a', ['a', 'b']),
    );
    const image = await provider.image(
      model('offline-image', 'image'),
      { prompt: 'p', aspectRatio: '1:1', resolution: '1K' },
      signal(),
    );
    expect([image.width, image.height, image.mimeType]).toEqual([1024, 1024, 'image/png']);
  });

  it('rejects calls made with an aborted signal', async () => {
    const aborted = AbortSignal.abort();
    await expect(provider.chat(model('c', 'chat'), request, aborted)).rejects.toMatchObject({
      name: 'AbortError',
    });
    await expect(provider.embed(model('e', 'embedding'), ['a'], aborted)).rejects.toMatchObject({
      name: 'AbortError',
    });
    await expect(provider.rerank(model('r', 'rerank'), 'a', ['a'], aborted)).rejects.toMatchObject({
      name: 'AbortError',
    });
  });

  it('passes the word delay to streams', async () => {
    const slow = new OfflineProvider({ wordDelayMs: 5 });
    const started = performance.now();
    let count = 0;
    for await (const _delta of slow.chatStream(model('c', 'chat'), request, signal())) count++;
    expect(performance.now() - started).toBeGreaterThanOrEqual((count - 1) * 4);
  });
});
