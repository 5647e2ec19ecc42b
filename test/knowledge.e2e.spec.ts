// Knowledge documents and tags over HTTP: the three levels, isolation between Agents and Spaces, tags, and the
// content stored in the blob store rather than the log.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EVENT_STORE, type EventStore } from '#event-store';
import { IngestionWorker } from '#knowledge/ingestion.worker';
import { waitUntil } from '#testing/fixtures';
import { strFromU8, unzipSync } from 'fflate';
import { ADMIN_KEY, client, CORE, startTestApi, uniqueName, type TestApi } from './support/api.js';

type Json = Record<string, unknown>;
type Doc = Json & { id: string; status: string; tags: string[]; contentHash: string; scope: string };

describe('knowledge documents and tags (e2e)', () => {
  let api: TestApi;
  let admin: ReturnType<typeof client>;
  const K = `${CORE}/knowledge`;

  beforeAll(async () => {
    api = await startTestApi();
    admin = client(api.url);
  });
  afterAll(async () => {
    await api.close();
  });

  const space = async () =>
    (await admin.post<{ id: string }>(`${CORE}/spaces`, { name: uniqueName('K') })).body.id;
  const agent = async (spaceId: string) =>
    (await admin.post<{ id: string }>(`${CORE}/agents`, { spaceId, name: 'Reader' })).body.id;
  const addText = (agentId: string, body: Json, as = admin) =>
    as.post<Doc>(`${K}/${agentId}/documents`, body);
  const list = async (agentId: string, query = '') =>
    (await admin.get<{ data: Doc[] }>(`${K}/${agentId}/documents${query}`)).body.data;

  it('adds documents at three levels, Pending, with their bytes in the blob store and not in the log', async () => {
    const spaceId = await space();
    const agentId = await agent(spaceId);
    const text = '# Refunds\n\nCustomers may return items within 30 days. SECRET-MARKER-42';
    const own = await addText(agentId, { name: 'refunds.md', text });
    expect(own.status).toBe(201);
    expect(own.body).toMatchObject({
      name: 'refunds.md',
      scope: 'agent',
      ownerId: agentId,
      provider: 'upload',
      tags: [],
      sizeBytes: Buffer.byteLength(text),
      error: null,
    });
    expect(own.body.contentHash).toMatch(/^sha256-[0-9a-f]{64}$/);
    const hex = own.body.contentHash.slice('sha256-'.length);
    expect(existsSync(join(api.config.dataDir, 'blobs', hex.slice(0, 2), own.body.contentHash))).toBe(true);
    const events = await api.app.get<EventStore>(EVENT_STORE).readStream(`document-${own.body.id}`);
    // Added Pending; the ingestion pipeline (tested on its own) may already have moved it on.
    expect(events[0]!.type).toBe('DocumentAdded');
    expect(['Pending', 'Processing', 'Ready']).toContain(own.body.status);
    expect(JSON.stringify(events)).not.toContain('SECRET-MARKER-42');

    const shared = await addText(agentId, {
      name: 'handbook.txt',
      text: 'Office hours 9-5.',
      scope: 'space',
    });
    expect(shared.body).toMatchObject({ scope: 'space', ownerId: spaceId });
    const global = await addText(agentId, { name: 'policy.md', text: 'Be kind.', scope: 'global' });
    expect(global.body).toMatchObject({ scope: 'global', ownerId: 'global' });
    expect((await admin.get(`${K}/${agentId}/documents/${own.body.id}`)).body).toMatchObject({
      id: own.body.id,
    });
  });

  it('isolates levels: an Agent sees its own, its Space’s and Global documents, never another Agent’s', async () => {
    const [spaceA, spaceB] = [await space(), await space()];
    const [a1, a2, b1] = [await agent(spaceA), await agent(spaceA), await agent(spaceB)];
    const own = (await addText(a1, { name: 'a1-only', text: 'private to a1' })).body;
    const inSpace = (await addText(a1, { name: 'space-a', text: 'shared in A', scope: 'space' })).body;
    const everywhere = (await addText(b1, { name: 'global', text: 'for all', scope: 'global' })).body;
    const ids = async (agentId: string) => (await list(agentId, '?limit=200')).map((doc) => doc.id);
    expect(await ids(a1)).toEqual(expect.arrayContaining([own.id, inSpace.id, everywhere.id]));
    expect(await ids(a2)).toEqual(expect.arrayContaining([inSpace.id, everywhere.id]));
    expect(await ids(a2)).not.toContain(own.id);
    expect(await ids(b1)).toContain(everywhere.id);
    expect(await ids(b1)).not.toContain(own.id);
    expect(await ids(b1)).not.toContain(inSpace.id);
    expect((await admin.get(`${K}/${b1}/documents/${own.id}`)).status).toBe(404);
    expect((await admin.delete(`${K}/${b1}/documents/${inSpace.id}`)).status).toBe(404);
    expect((await list(a1, '?scope=space')).map((doc) => doc.id)).toEqual([inSpace.id]);
    expect((await list(a1, '?scope=agent')).map((doc) => doc.id)).toEqual([own.id]);
    expect((await list(a1, '?scope=agent&status=Failed')).map((doc) => doc.id)).toEqual([]);
  });

  it("keeps Global documents to admins, and a personal Agent's Space documents in its user's private Space", async () => {
    const spaceId = await space();
    const agentId = await agent(spaceId);
    const key = (await admin.post<{ key: string }>(`${CORE}/api-keys`, { name: 'member', agents: [agentId] }))
      .body.key;
    const member = client(api.url, key);
    expect((await addText(agentId, { name: 'g', text: 'x', scope: 'global' }, member)).status).toBe(403);
    const mine = await addText(agentId, { name: 'mine', text: 'x' }, member);
    expect(mine.status).toBe(201);
    const global = (await addText(agentId, { name: 'g', text: 'x', scope: 'global' })).body;
    expect((await member.put(`${K}/${agentId}/documents/${global.id}`, { name: 'renamed' })).status).toBe(
      403,
    );
    const other = await agent(spaceId);
    expect((await member.get(`${K}/${other}/documents`)).status).toBe(403);

    // The admin's personal Agent lives in the admin's private personal Space: a Space document is theirs alone.
    const agents = await admin.get<{ data: (Json & { id: string })[] }>(`${CORE}/agents?limit=200`);
    const personal = agents.body.data.find((a) => a.isPersonal === true);
    expect(personal).toMatchObject({ spaceId: expect.stringMatching(/^spc_personal_/) });
    const kept = await addText(personal!.id, { name: 'x', text: 'x', scope: 'space' });
    expect(kept.status).toBe(201);
  });

  it('renames, replaces content (a new hash) and leaves identical content alone', async () => {
    const agentId = await agent(await space());
    const doc = (await addText(agentId, { name: 'notes.txt', text: 'first' })).body;
    const renamed = await admin.put<Doc>(`${K}/${agentId}/documents/${doc.id}`, { name: 'notes-v2.txt' });
    expect(renamed.body).toMatchObject({ name: 'notes-v2.txt', contentHash: doc.contentHash });
    const replaced = await admin.put<Doc>(`${K}/${agentId}/documents/${doc.id}`, { text: 'second' });
    expect(replaced.body.contentHash).not.toBe(doc.contentHash);
    expect(['Pending', 'Processing', 'Ready']).toContain(replaced.body.status);
    await admin.put(`${K}/${agentId}/documents/${doc.id}`, { text: 'second' });
    const events = await api.app.get<EventStore>(EVENT_STORE).readStream(`document-${doc.id}`);
    // What the client did (the pipeline's processing events aside): the same text again appended nothing.
    const clientEvents = events.filter((event) => event.metadata.actor.kind !== 'system');
    expect(clientEvents.map((event) => event.type)).toEqual([
      'DocumentAdded',
      'DocumentRenamed',
      'DocumentContentReplaced',
    ]);
    const bad = await admin.put(`${K}/${agentId}/documents/${doc.id}`, {});
    expect(bad.status).toBe(400);
  });

  it('creates, renames, recolours, attaches, sets and deletes tags', async () => {
    const agentId = await agent(await space());
    const other = await agent(await space());
    const tag = (await admin.post<Json & { id: string }>(`${K}/${agentId}/tags`, { name: 'Policies' })).body;
    expect(tag).toMatchObject({ agentId, name: 'Policies', color: '#64748b' });
    const second = (
      await admin.post<{ id: string }>(`${K}/${agentId}/tags`, { name: 'HR', color: '#ff0000' })
    ).body;
    expect((await admin.post(`${K}/${agentId}/tags`, { name: 'x', color: 'red' })).status).toBe(400);
    const changed = await admin.put(`${K}/${agentId}/tags/${tag.id}`, { name: 'Rules', color: '#00ff00' });
    expect(changed.body).toMatchObject({ name: 'Rules', color: '#00ff00' });
    expect((await admin.get<{ data: Json[] }>(`${K}/${agentId}/tags`)).body.data).toHaveLength(2);
    expect((await admin.get<{ data: Json[] }>(`${K}/${other}/tags`)).body.data).toHaveLength(0);

    const doc = (await addText(agentId, { name: 'd', text: 'x', tagIds: [tag.id] })).body;
    expect(doc.tags).toEqual([tag.id]);
    const attached = await admin.post<Doc>(`${K}/${agentId}/documents/${doc.id}/tags/${second.id}`);
    expect(attached.body.tags).toEqual([tag.id, second.id]);
    const detached = await admin.delete<Doc>(`${K}/${agentId}/documents/${doc.id}/tags/${tag.id}`);
    expect(detached.body.tags).toEqual([second.id]);
    const set = await admin.put<Doc>(`${K}/${agentId}/documents/${doc.id}`, { tagIds: [tag.id] });
    expect(set.body.tags).toEqual([tag.id]);
    // A tag of another Agent, or an unknown one, is not found.
    const foreign = (await admin.post<{ id: string }>(`${K}/${other}/tags`, { name: 'Theirs' })).body;
    const refused = await admin.post(`${K}/${agentId}/documents/${doc.id}/tags/${foreign.id}`);
    expect(refused.status).toBe(404);
    const unknown = await addText(agentId, { name: 'd2', text: 'y', tagIds: ['tag_nope'] });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ error: { code: 'tag_not_found', param: 'tagIds' } });

    expect((await admin.delete(`${K}/${agentId}/tags/${tag.id}`)).status).toBe(204);
    expect((await admin.get<Doc>(`${K}/${agentId}/documents/${doc.id}`)).body.tags).toEqual([]);
    expect((await admin.put(`${K}/${agentId}/tags/${tag.id}`, { name: 'gone' })).status).toBe(404);
    // The detachment is a fact of the document's own history, appended by the tag-deletion process manager.
    const log = await admin.get<{ entries: { event: string; actor: { kind: string }; details: Json }[] }>(
      `${K}/${agentId}/documents/${doc.id}/log`,
    );
    const detachments = log.body.entries.filter(
      (entry) => entry.event === 'DocumentTagDetached' && entry.details['tagId'] === tag.id,
    );
    expect(detachments.map((entry) => entry.actor.kind)).toEqual(['apiKey', 'system']);
  });

  it('keeps tags on shared documents per Agent: another Agent never sees, replaces or removes them', async () => {
    const spaceId = await space();
    const [a, b] = [await agent(spaceId), await agent(spaceId)];
    const elsewhere = await agent(await space());
    const global = (await addText(a, { name: 'handbook', text: 'h', scope: 'global' })).body;
    const shared = (await addText(a, { name: 'runbook', text: 'r', scope: 'space' })).body;
    const ta = (await admin.post<{ id: string }>(`${K}/${a}/tags`, { name: 'Mine' })).body.id;
    for (const doc of [global, shared])
      expect((await admin.post<Doc>(`${K}/${a}/documents/${doc.id}/tags/${ta}`)).body.tags).toEqual([ta]);

    // Another Agent (of the Space, or of another one for the Global document) sees the documents, not A's tag.
    const tagsSeen = async (agentId: string, docId: string) =>
      (await list(agentId)).find((doc) => doc.id === docId)?.tags;
    expect(await tagsSeen(b, global.id)).toEqual([]);
    expect(await tagsSeen(b, shared.id)).toEqual([]);
    expect(await tagsSeen(elsewhere, global.id)).toEqual([]);
    expect((await admin.get<Doc>(`${K}/${b}/documents/${global.id}`)).body.tags).toEqual([]);
    expect(JSON.stringify((await admin.get(`${K}/${b}/documents?scope=space`)).body)).not.toContain(ta);

    // B tags the Space document with its own tag: each Agent sees its own.
    const tb = (await admin.post<{ id: string }>(`${K}/${b}/tags`, { name: 'Theirs' })).body.id;
    expect((await admin.post<Doc>(`${K}/${b}/documents/${shared.id}/tags/${tb}`)).body.tags).toEqual([tb]);
    expect(await tagsSeen(a, shared.id)).toEqual([ta]);
    expect(await tagsSeen(b, shared.id)).toEqual([tb]);
    // Setting B's tags replaces B's only; B cannot remove A's tag (not its tag: 404), nor filter a search by it.
    const set = await admin.put<Doc>(`${K}/${b}/documents/${shared.id}`, { tagIds: [] });
    expect([set.status, set.body.tags]).toEqual([200, []]);
    expect(await tagsSeen(a, shared.id)).toEqual([ta]);
    const removed = await admin.delete<{ error: { code: string } }>(
      `${K}/${b}/documents/${shared.id}/tags/${ta}`,
    );
    expect([removed.status, removed.body.error.code]).toEqual([404, 'tag_not_found']);
    const bulk = await admin.post<{ results: { ok: boolean }[] }>(`${K}/${b}/documents/bulk`, {
      action: 'removeTag',
      tagId: ta,
      documentIds: [shared.id],
    });
    expect(bulk.status).toBe(404);
    expect(await tagsSeen(a, shared.id)).toEqual([ta]);
    const search = await admin.post(`${K}/${b}/search`, { query: 'runbook', tagIds: [ta] });
    expect(search.status).toBe(404);
    // Nor in the document's history: B's log of it names B's tags only; A's names A's.
    const logOf = async (agentId: string) =>
      JSON.stringify((await admin.get(`${K}/${agentId}/documents/${shared.id}/log`)).body);
    expect(await logOf(b)).not.toContain(ta);
    expect(await logOf(b)).toContain(tb);
    expect(await logOf(a)).toContain(ta);
    expect(await logOf(a)).not.toContain(tb);
  });

  it('deletes a document: gone from lists, a second delete is 404', async () => {
    const agentId = await agent(await space());
    const doc = (await addText(agentId, { name: 'temp', text: 'delete me' })).body;
    expect((await admin.delete(`${K}/${agentId}/documents/${doc.id}`)).status).toBe(204);
    expect((await admin.get(`${K}/${agentId}/documents/${doc.id}`)).status).toBe(404);
    expect((await list(agentId)).map((d) => d.id)).not.toContain(doc.id);
    expect((await admin.delete(`${K}/${agentId}/documents/${doc.id}`)).status).toBe(404);
    expect((await admin.get(`${K}/agt_nope/documents`)).status).toBe(404);
  });

  it('leaves a deleted document’s words in no file under the data dir, another document’s still searchable', async () => {
    const agentId = await agent(await space());
    // Lower case: FTS5 keeps terms folded, and this word shares no prefix with the other terms of the index.
    const erased = 'xylocarpzenith';
    const gone = (
      await addText(agentId, { name: 'gone.md', text: `# Note\n\nThe ${erased} clause is void.` })
    ).body;
    const kept = (await addText(agentId, { name: 'kept.md', text: '# Note\n\nThe marmalade clause holds.' }))
      .body;
    const files = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
        entry.isDirectory() ? files(join(dir, entry.name)) : [join(dir, entry.name)],
      );
    const holding = () => files(api.config.dataDir).filter((path) => readFileSync(path).includes(erased));
    const found = async (query: string) =>
      (
        await admin.post<{ hits: { documentId: string }[] }>(`${K}/${agentId}/search`, { query })
      ).body.hits.map((hit) => hit.documentId);
    await waitUntil(
      async () => (await found(erased)).includes(gone.id) && (await found('marmalade')).includes(kept.id),
      10_000,
    );
    expect(holding()).not.toEqual([]);

    expect((await admin.delete(`${K}/${agentId}/documents/${gone.id}`)).status).toBe(204);
    // The purge runs after the deletion, and the index erases its words within about a second (search-index).
    await waitUntil(() => holding().length === 0, 10_000);
    expect(await found(erased)).not.toContain(gone.id);
    expect(await found('marmalade')).toContain(kept.id);
  });

  it('deleting an Agent deletes its documents and tags; deleting a Space deletes its Space documents', async () => {
    const spaceId = await space();
    const [keeper, leaving] = [await agent(spaceId), await agent(spaceId)];
    const own = (await addText(leaving, { name: 'own', text: 'agent level' })).body;
    const tag = (await admin.post<{ id: string }>(`${K}/${leaving}/tags`, { name: 'T' })).body;
    const shared = (await addText(leaving, { name: 'shared', text: 'space level', scope: 'space' })).body;
    const store = api.app.get<EventStore>(EVENT_STORE);
    const eventually = async (check: () => Promise<boolean>) => {
      for (let i = 0; i < 200 && !(await check()); i++) await new Promise((r) => setTimeout(r, 25));
      expect(await check()).toBe(true);
    };
    const streamTypes = async (stream: string) => (await store.readStream(stream)).map((event) => event.type);

    expect((await admin.delete(`${CORE}/agents/${leaving}`)).status).toBe(204);
    await eventually(async () => (await streamTypes(`document-${own.id}`)).includes('DocumentDeleted'));
    await eventually(async () =>
      (await streamTypes(`knowledge-tag-${tag.id}`)).includes('KnowledgeTagDeleted'),
    );
    // The Space document stays for the Space's other Agents.
    expect((await list(keeper)).map((doc) => doc.id)).toContain(shared.id);
    const deletion = (await store.readStream(`document-${own.id}`)).find(
      (event) => event.type === 'DocumentDeleted',
    )!;
    expect(deletion.data).toMatchObject({ reason: 'owner_deleted' });
    expect(deletion.metadata.actor).toEqual({ kind: 'system', id: 'platform' });

    expect((await admin.delete(`${CORE}/spaces/${spaceId}`)).status).toBe(204);
    await eventually(async () => (await streamTypes(`document-${shared.id}`)).includes('DocumentDeleted'));
  });

  it("leaves a deleted Space's document text in no file under DATA_DIR, its -wal files included", async () => {
    const spaceId = await space();
    const agentId = await agent(spaceId);
    const secret = `SPACEGONE${Math.random().toString(36).slice(2, 12).toUpperCase()}`;
    const text = [
      '# Handbook',
      '',
      ...Array.from({ length: 30 }, (_, i) => `Rule ${i}: ${secret} applies.`),
    ].join('\n\n');
    const doc = (await addText(agentId, { name: 'handbook.md', text, scope: 'space' })).body;
    await waitUntil(async () => {
      await api.app.get(IngestionWorker).idle();
      return (await admin.get<Doc>(`${K}/${agentId}/documents/${doc.id}`)).body.status === 'Ready';
    }, 20_000);
    const holding = () => {
      const found: string[] = [];
      for (const entry of readdirSync(api.config.dataDir, { withFileTypes: true, recursive: true })) {
        if (!entry.isFile()) continue;
        try {
          if (readFileSync(join(entry.parentPath, entry.name)).includes(secret)) found.push(entry.name);
        } catch {
          // removed meanwhile (a rotated journal)
        }
      }
      return found;
    };
    expect(holding()).not.toEqual([]);

    expect((await admin.delete(`${CORE}/spaces/${spaceId}`)).status).toBe(204);
    const store = api.app.get<EventStore>(EVENT_STORE);
    await waitUntil(
      async () =>
        (await store.readStream(`document-${doc.id}`)).some(
          (event) => event.type === 'DocumentContentPurged',
        ),
      20_000,
    );
    // Purged means the chunks left the index and the blobs were removed: nothing may remain, WAL files included.
    expect(holding()).toEqual([]);
  });

  it('runs bulk actions per document: tag, untag, re-process (forced or not) and delete', async () => {
    const agentId = await agent(await space());
    const [d1, d2] = [
      (await addText(agentId, { name: 'b1', text: 'one' })).body,
      (await addText(agentId, { name: 'b2', text: 'two' })).body,
    ];
    const tag = (await admin.post<{ id: string }>(`${K}/${agentId}/tags`, { name: 'Bulk' })).body;
    const bulk = (body: Json) =>
      admin.post<{ results: { documentId: string; ok: boolean; error?: { code: string } }[] }>(
        `${K}/${agentId}/documents/bulk`,
        body,
      );
    const tagged = await bulk({
      action: 'addTag',
      tagId: tag.id,
      documentIds: [d1.id, d2.id, 'doc_missing'],
    });
    expect(tagged.status).toBe(200);
    expect(tagged.body.results).toEqual([
      { documentId: d1.id, ok: true },
      { documentId: d2.id, ok: true },
      {
        documentId: 'doc_missing',
        ok: false,
        error: expect.objectContaining({ code: 'document_not_found' }),
      },
    ]);
    expect((await admin.get<Doc>(`${K}/${agentId}/documents/${d2.id}`)).body.tags).toEqual([tag.id]);
    expect(
      (await bulk({ action: 'removeTag', tagId: tag.id, documentIds: [d2.id] })).body.results[0]!.ok,
    ).toBe(true);
    expect((await admin.get<Doc>(`${K}/${agentId}/documents/${d2.id}`)).body.tags).toEqual([]);
    expect((await bulk({ action: 'addTag', documentIds: [d1.id] })).status).toBe(400);

    await bulk({ action: 'reprocess', documentIds: [d1.id] });
    await bulk({ action: 'forceReprocess', documentIds: [d1.id] });
    const events = await api.app.get<EventStore>(EVENT_STORE).readStream(`document-${d1.id}`);
    expect(
      events.filter((e) => e.type === 'DocumentReprocessingRequested').map((e) => (e.data as Json).force),
    ).toEqual([false, true]);

    const deleted = await bulk({ action: 'delete', documentIds: [d1.id, d2.id] });
    expect(deleted.body.results.every((result) => result.ok)).toBe(true);
    expect(await list(agentId, '?scope=agent')).toEqual([]);
  });

  it('downloads several documents as one zip, repeated names kept apart', async () => {
    const agentId = await agent(await space());
    const a = (await addText(agentId, { name: 'dup.md', text: '# First' })).body;
    const b = (await addText(agentId, { name: 'dup.md', text: '# Second' })).body;
    const response = await fetch(`${api.url}${K}/${agentId}/documents/download`, {
      method: 'POST',
      headers: { 'x-api-key': ADMIN_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ documentIds: [a.id, b.id] }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/zip');
    const files = unzipSync(new Uint8Array(await response.arrayBuffer()));
    expect(Object.keys(files).sort()).toEqual(['dup (2).md', 'dup.md']);
    expect(strFromU8(files['dup.md']!)).toBe('# First');
    expect(strFromU8(files['dup (2).md']!)).toBe('# Second');
    const missing = await admin.post(`${K}/${agentId}/documents/download`, { documentIds: ['doc_nope'] });
    expect(missing.status).toBe(404);
  });
});
