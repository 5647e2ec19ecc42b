// A keyed turn in flight is seen by every api process: two api processes on one DATA_DIR, a turn with an
// Idempotency-Key held in flight on the first (the model never answers), the same key on the second → 409
// `idempotency_in_flight`. Once the first ends (its client leaves: recorded incomplete), a retry on the second
// answers it.
import { MEMORY_EXTRACTION_HEADER } from '#memory';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startFakeUpstream } from '#testing/fake-openai-upstream';
import { waitUntil } from '#testing/fixtures';
import { ADMIN_KEY, client, tempDataDir } from './support/api.js';
import { agentInNewSpace } from './support/scenario.js';
import { spawnApi, stopProcess } from './support/process.js';

describe('a keyed conversation turn in flight across api processes (e2e, two processes)', () => {
  it('answers 409 on another process while the first runs, and completes the turn once it has ended', async () => {
    const upstream = await startFakeUpstream({ hang: true });
    const dataDir = tempDataDir();
    const modelsFile = join(dataDir, 'models.yaml');
    writeFileSync(
      modelsFile,
      `models:\n  - { key: slow-chat, modelId: fake-model, provider: fake, baseUrl: '${upstream.url}', kind: chat }\n`,
    );
    const env = { DATA_DIR: dataDir, ADMIN_API_KEY: ADMIN_KEY, MODELS_FILE: modelsFile };
    const first = await spawnApi(env);
    const second = await spawnApi(env);
    try {
      const one = client(first.url);
      const two = client(second.url);
      const { turns: conversations } = await agentInNewSpace(
        one,
        { name: 'Slow', model: 'slow-chat', memoryEnabled: false },
        'In flight',
      );
      const headers = { 'idempotency-key': 'turn-in-flight-1' };
      const body = { message: 'count the lighthouses' };

      // The first process's turn reaches the model, which does not answer: the turn is in flight.
      const leaving = new AbortController();
      const held = fetch(`${first.url}${conversations}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': ADMIN_KEY, ...headers },
        body: JSON.stringify(body),
        signal: leaving.signal,
      }).catch(() => null);
      const chatRequests = () =>
        upstream.requests.filter(
          (r) => r.path === '/v1/chat/completions' && !r.rawBody.includes(MEMORY_EXTRACTION_HEADER),
        );
      await waitUntil(() => chatRequests().length > 0, 15_000);

      const retried = await two.post<{ error: { code: string } }>(conversations, body, headers);
      expect(retried.status).toBe(409);
      expect(retried.body.error.code).toBe('idempotency_in_flight');
      expect(chatRequests()).toHaveLength(1);

      // The first client leaves: its turn is recorded incomplete and no longer in flight; the retry answers it.
      leaving.abort();
      expect(await held).toBeNull();
      upstream.set({ hang: false, reply: 'Three lighthouses.' });
      let answered = await two.post<{ message: { content: string; status: string } }>(
        conversations,
        body,
        headers,
      );
      // The first process releases the turn once it has recorded the incomplete answer.
      for (let i = 0; i < 200 && answered.status === 409; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        answered = await two.post(conversations, body, headers);
      }
      expect(answered.status).toBe(200);
      expect(answered.body.message).toMatchObject({ content: 'Three lighthouses.', status: 'complete' });
    } finally {
      await stopProcess(second.child);
      await stopProcess(first.child);
      await upstream.close();
    }
  });
});
