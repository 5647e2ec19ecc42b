// Crash safety: SIGKILL the api in the middle of a burst of writes. After a restart every acknowledged write is
// there, and the read models equal a fresh rebuild from the log.
import { join } from 'node:path';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store';
import { SqliteReadStore } from '#read-store/sqlite/sqlite-read-store';
import { ProjectionRunner } from '#eventsourcing';
import type { StoredDocument } from '#read-store';
import { agentsProjector } from '#projections/agents/agents.projector';
import { apiKeysProjector } from '#projections/api-keys/api-keys.projector';
import { spacesProjector } from '#projections/spaces/spaces.projector';
import { usersProjector } from '#projections/users/users.projector';
import { writeFileSync } from 'node:fs';
import OpenAI from 'openai';
import { startFakeUpstream } from '#testing/fake-openai-upstream';
import { ADMIN_KEY, client, CORE, tempDataDir } from './support/api.js';
import { agentInNewSpace } from './support/scenario.js';
import { spawnApi, stopProcess } from './support/process.js';
import { recordedCalls } from './support/usage-events.js';

const READ_MODELS = [spacesProjector, agentsProjector, usersProjector, apiKeysProjector];

describe('crash safety (e2e, separate process)', () => {
  it('keeps every acknowledged write across a SIGKILL, and read models equal a rebuild from the log', async () => {
    const dataDir = tempDataDir();
    const env = { DATA_DIR: dataDir, ADMIN_API_KEY: ADMIN_KEY };
    const first = await spawnApi(env);
    const api = client(first.url);
    const space = (await api.post<{ id: string }>(`${CORE}/spaces`, { name: 'Crash test' })).body;

    const acknowledged: { kind: 'agent' | 'prompt'; id: string; name?: string; prompt?: string }[] = [];
    let killed = false;
    const writer = async (worker: number) => {
      for (let i = 0; !killed || i < 1; i++) {
        try {
          const created = await api.post<{ id: string }>(`${CORE}/agents`, {
            spaceId: space.id,
            name: `w${worker}-${i}`,
          });
          if (created.status !== 201) continue;
          acknowledged.push({ kind: 'agent', id: created.body.id, name: `w${worker}-${i}` });
          const prompt = `prompt ${worker}/${i}`;
          const changed = await api.put(`${CORE}/agents/${created.body.id}/prompt`, { systemPrompt: prompt });
          if (changed.status === 200) acknowledged.push({ kind: 'prompt', id: created.body.id, prompt });
        } catch {
          return; // the server is gone: nothing after this was acknowledged
        }
      }
    };
    const writers = Array.from({ length: 6 }, (_, worker) => writer(worker));
    while (acknowledged.length < 120) await new Promise((resolve) => setTimeout(resolve, 5));
    first.child.kill('SIGKILL');
    killed = true;
    await Promise.all(writers);
    expect(acknowledged.length).toBeGreaterThanOrEqual(120);

    const second = await spawnApi(env);
    const again = client(second.url);
    const lastPrompt = new Map<string, string>();
    for (const write of acknowledged) {
      const agent = await again.get<{ name: string; systemPrompt: string }>(`${CORE}/agents/${write.id}`);
      expect(agent.status).toBe(200);
      if (write.kind === 'agent') expect(agent.body.name).toBe(write.name);
      if (write.kind === 'prompt') lastPrompt.set(write.id, write.prompt!);
    }
    for (const [id, prompt] of lastPrompt)
      expect((await again.get<{ systemPrompt: string }>(`${CORE}/agents/${id}`)).body.systemPrompt).toBe(
        prompt,
      );
    await stopProcess(second.child);

    // A fresh rebuild of every read model from the log, compared document by document with the live ones.
    const eventStore = new SqliteEventStore({ path: join(dataDir, 'events.db') });
    const live = new SqliteReadStore({ path: join(dataDir, 'read.db') });
    const rebuilt = new SqliteReadStore({ path: ':memory:' });
    const runner = new ProjectionRunner(eventStore, rebuilt, READ_MODELS, { owner: 'rebuild-check' });
    runner.start();
    expect(await runner.caughtUp(20_000)).toBe(true);
    await runner.stop();
    for (const projector of READ_MODELS) {
      for (const { name } of projector.collections) {
        const all = async (store: SqliteReadStore) =>
          (await store.reader<StoredDocument>(name).find({}, { sort: { field: 'id' } })).data;
        const expected = await all(rebuilt);
        expect(await all(live)).toEqual(expected);
        if (name === 'agents')
          expect(expected.length).toBeGreaterThanOrEqual(
            acknowledged.filter((w) => w.kind === 'agent').length,
          );
      }
    }
    await Promise.all([eventStore.close(), live.close(), rebuilt.close()]);
  });

  it('creates nothing twice when unanswered requests are retried with their Idempotency-Key after kill -9 (20 kills)', async () => {
    const dataDir = tempDataDir();
    // A retry finds the first attempt recorded as running for this long; past it the request is run again.
    const env = { DATA_DIR: dataDir, ADMIN_API_KEY: ADMIN_KEY, IDEMPOTENCY_IN_FLIGHT_MS: '200' };
    let server = await spawnApi(env);
    const space = (await client(server.url).post<{ id: string }>(`${CORE}/spaces`, { name: 'Kill loop' }))
      .body;
    const acknowledged = new Map<string, string>();
    const send = (url: string, name: string, key: string) =>
      fetch(`${url}${CORE}/agents`, {
        method: 'POST',
        headers: { 'x-api-key': ADMIN_KEY, 'content-type': 'application/json', 'idempotency-key': key },
        body: JSON.stringify({ spaceId: space.id, name }),
      }).then(
        async (response) => ({ status: response.status, body: (await response.json()) as { id: string } }),
        () => null,
      );
    let retried = 0;
    for (let round = 0; round < 20; round++) {
      const unanswered: { name: string; key: string }[] = [];
      let killed = false;
      const writer = async (worker: number) => {
        for (let i = 0; !killed; i++) {
          const name = `r${round}-w${worker}-${i}`;
          const key = `kill-${round}-${worker}-${i}`;
          const reply = await send(server.url, name, key);
          if (reply?.status === 201) acknowledged.set(name, reply.body.id);
          else unanswered.push({ name, key });
          if (!reply) return;
        }
      };
      const writers = Array.from({ length: 4 }, (_, worker) => writer(worker));
      const target = acknowledged.size + 8;
      while (acknowledged.size < target) await new Promise((resolve) => setTimeout(resolve, 2));
      server.child.kill('SIGKILL');
      killed = true;
      await Promise.all(writers);
      server = await spawnApi(env);
      await new Promise((resolve) => setTimeout(resolve, 250));
      for (const { name, key } of unanswered) {
        retried++;
        const reply = await send(server.url, name, key);
        expect(reply?.status).toBe(201);
        // A replay, or the same entity found again: the first attempt's id either way.
        if (acknowledged.has(name)) expect(reply!.body.id).toBe(acknowledged.get(name));
        acknowledged.set(name, reply!.body.id);
      }
    }
    const listed = new Map<string, number>();
    for (let cursor: string | null = null, first = true; first || cursor; first = false) {
      const page: { body: { data: { name: string }[]; nextCursor: string | null } } = await client(
        server.url,
      ).get(
        `${CORE}/agents?spaceId=${space.id}&limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      for (const agent of page.body.data) listed.set(agent.name, (listed.get(agent.name) ?? 0) + 1);
      cursor = page.body.nextCursor;
    }
    await stopProcess(server.child);
    expect(retried).toBeGreaterThan(0);
    expect([...acknowledged.keys()].filter((name) => !listed.has(name))).toEqual([]);
    expect([...listed].filter(([, count]) => count > 1)).toEqual([]);
  }, 240_000);

  it('loses no usage record on a clean shutdown, also of streams still running when SIGTERM arrives', async () => {
    const upstream = await startFakeUpstream({ chunkDelayMs: 40, streamChunks: 10 });
    const dataDir = tempDataDir();
    const modelsFile = join(dataDir, 'models.yaml');
    writeFileSync(
      modelsFile,
      `models:\n  - { key: slow-chat, modelId: fake-model, provider: fake, baseUrl: '${upstream.url}', kind: chat }\n`,
    );
    const api = await spawnApi({ DATA_DIR: dataDir, ADMIN_API_KEY: ADMIN_KEY, MODELS_FILE: modelsFile });
    const sdk = new OpenAI({ baseURL: `${api.url}/api/compat/v1`, apiKey: ADMIN_KEY, maxRetries: 0 });
    // Finished calls still queued for their batch, plus streams in flight.
    for (let i = 0; i < 5; i++)
      await sdk.chat.completions.create({
        model: 'offline-chat',
        messages: [{ role: 'user', content: `q${i}` }],
      });
    let firstChunks = 0;
    const streams = Array.from({ length: 4 }, async () => {
      const stream = await sdk.chat.completions.create({
        model: 'slow-chat',
        messages: [{ role: 'user', content: 'one two three four five six seven eight nine ten' }],
        stream: true,
      });
      let text = '';
      let counted = false;
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta.content ?? '';
        if (!counted) {
          counted = true;
          firstChunks++;
        }
      }
      return text;
    });
    while (firstChunks < 4) await new Promise((resolve) => setTimeout(resolve, 5));
    await stopProcess(api.child, 'SIGTERM');
    // The streams in flight were allowed to finish.
    expect(await Promise.all(streams)).toEqual(
      Array(4).fill('Echo: one two three four five six seven eight nine ten'),
    );
    await upstream.close();

    const eventStore = new SqliteEventStore({ path: join(dataDir, 'events.db') });
    const calls = recordedCalls(await eventStore.readAll());
    expect(calls.map((call) => call.model).sort()).toEqual([
      ...Array(5).fill('offline-chat'),
      ...Array(4).fill('slow-chat'),
    ]);
    await eventStore.close();
  });

  it('resumes ingestion after a SIGKILL: every document ends Ready, none stuck in Processing, no duplicate chunk', async () => {
    const dataDir = tempDataDir();
    const env = { DATA_DIR: dataDir, ADMIN_API_KEY: ADMIN_KEY };
    const first = await spawnApi(env);
    const api = client(first.url);
    const agent = { id: (await agentInNewSpace(api, { name: 'Reader' }, 'Ingest crash')).agentId };
    const section = (n: number) =>
      `## Section ${n}\n\n` +
      `Paragraph ${n} about topic ${n} with enough words to make a chunk. `.repeat(40);
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      const text = `# Manual ${i}\n\n` + Array.from({ length: 6 }, (_, n) => section(n)).join('\n\n');
      const added = await api.post<{ id: string }>(`${CORE}/knowledge/${agent.id}/documents`, {
        name: `m${i}.md`,
        text,
      });
      expect(added.status).toBe(201);
      ids.push(added.body.id);
    }
    // Killed while the pipeline is still at work (each parse has a worker thread of its own to start).
    const before = await Promise.all(
      ids.map(
        async (id) =>
          (await api.get<{ status: string }>(`${CORE}/knowledge/${agent.id}/documents/${id}`)).body.status,
      ),
    );
    first.child.kill('SIGKILL');
    await new Promise((resolve) => first.child.once('exit', resolve));
    expect(before.filter((status) => status !== 'Ready').length).toBeGreaterThan(0);

    const second = await spawnApi(env);
    const again = client(second.url);
    const statuses = async () =>
      Promise.all(
        ids.map(
          async (id) =>
            (await again.get<{ status: string }>(`${CORE}/knowledge/${agent.id}/documents/${id}`)).body
              .status,
        ),
      );
    for (let i = 0; i < 400 && (await statuses()).some((status) => status !== 'Ready'); i++)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await statuses()).toEqual(ids.map(() => 'Ready'));
    await stopProcess(second.child);

    // The index holds each document once, with exactly the chunks of its Ready version.
    const eventStore = new SqliteEventStore({ path: join(dataDir, 'events.db') });
    const { SqliteSearchIndex } = await import('#search/sqlite/sqlite-search-index');
    const index = new SqliteSearchIndex({ path: join(dataDir, 'search.db') });
    const live = await index.liveIndex('knowledge');
    const stats = await index.stats(live!);
    expect(stats.documents).toBe(ids.length);
    let expectedChunks = 0;
    for (const id of ids) {
      const events = await eventStore.readStream(`document-${id}`);
      const ready = events.filter((event) => event.type === 'DocumentReady');
      expect(ready).toHaveLength(1);
      expectedChunks += (ready[0]!.data as { chunkCount: number }).chunkCount;
    }
    expect(stats.chunks).toBe(expectedChunks);
    await Promise.all([eventStore.close(), index.close()]);
  });
});
