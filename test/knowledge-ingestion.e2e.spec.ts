// The ingestion pipeline end to end: documents go Pending → Processing → Ready (or Failed with a reason), search
// returns cited passages from every level the Agent can reach and nothing else, re-processing unchanged content is
// skipped, and deleting a document takes it out of search and purges its content.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EVENT_STORE, type EventStore } from '#event-store';
import { BLOB_STORE, type BlobStore } from '#blob-store';
import { IngestionWorker } from '#knowledge/ingestion.worker';
import { startFakeUpstream } from '#testing/fake-openai-upstream';
import {
  ADMIN_KEY,
  client,
  CORE,
  startTestApi,
  uniqueName,
  type TestApi,
  writeModelsFile,
} from './support/api.js';

type Json = Record<string, unknown>;
type Doc = Json & {
  id: string;
  status: string;
  contentHash: string;
  error: { reason: string } | null;
};
type Hit = {
  documentId: string;
  documentName: string;
  sectionPath: string[];
  start: number;
  end: number;
  text: string;
};

const FIXTURES = join(process.cwd(), 'libs/contexts/knowledge/src/ingestion/fixtures');

describe('knowledge ingestion and search (e2e)', () => {
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
    (await admin.post<{ id: string }>(`${CORE}/spaces`, { name: uniqueName('I') })).body.id;
  const agent = async (spaceId: string) =>
    (await admin.post<{ id: string }>(`${CORE}/agents`, { spaceId, name: 'Reader' })).body.id;
  const settled = async (agentId: string, documentId: string): Promise<Doc> => {
    await api.app.get(IngestionWorker).idle();
    for (let i = 0; i < 200; i++) {
      const doc = (await admin.get<Doc>(`${K}/${agentId}/documents/${documentId}`)).body;
      if (doc.status === 'Ready' || doc.status === 'Failed') return doc;
      await new Promise((resolve) => setTimeout(resolve, 25));
      await api.app.get(IngestionWorker).idle();
    }
    throw new Error(`document ${documentId} did not settle`);
  };
  const list = async (agentId: string) =>
    (await admin.get<{ data: Doc[] }>(`${K}/${agentId}/documents?scope=agent`)).body.data;
  const search = async (agentId: string, query: string, extra: Json = {}) =>
    (await admin.post<{ hits: Hit[] }>(`${K}/${agentId}/search`, { query, ...extra })).body.hits;
  const types = async (documentId: string) =>
    (await api.app.get<EventStore>(EVENT_STORE).readStream(`document-${documentId}`)).map(
      (event) => event.type,
    );

  it('takes a Markdown document to Ready and finds its sections with citations', async () => {
    const agentId = await agent(await space());
    const text = [
      '# Returns policy',
      '',
      'Customers may return unworn shoes within thirty days of delivery for a full refund.',
      '',
      '## Damaged goods',
      '',
      'Damaged parcels must be reported to the courier within forty-eight hours.',
    ].join('\n');
    const added = (await admin.post<Doc>(`${K}/${agentId}/documents`, { name: 'returns.md', text })).body;
    expect(added.status).toBe('Pending');
    const ready = await settled(agentId, added.id);
    expect(ready).toMatchObject({ status: 'Ready', mimeType: 'text/markdown', error: null });
    expect(await types(added.id)).toEqual(['DocumentAdded', 'DocumentProcessingStarted', 'DocumentReady']);

    const hits = await search(agentId, 'damaged parcel courier');
    expect(hits[0]).toMatchObject({ documentId: added.id, documentName: 'returns.md' });
    expect(hits[0]!.sectionPath).toEqual(['Returns policy', 'Damaged goods']);
    expect(hits[0]!.text).toContain('forty-eight hours');
    // The offsets cite the extracted text.
    expect(hits[0]!.end).toBeGreaterThan(hits[0]!.start);
    // The citation's offsets point into the extracted text, which the content route serves.
    const content = await (
      await fetch(`${api.url}${K}/${agentId}/documents/${added.id}/content`, {
        headers: { 'x-api-key': ADMIN_KEY },
      })
    ).text();
    expect(content.slice(hits[0]!.start, hits[0]!.end)).toContain('forty-eight hours');
    const chunks = (
      await admin.get<{ chunks: { sectionPath: string[]; start: number; end: number; text: string }[] }>(
        `${K}/${agentId}/documents/${added.id}/chunks`,
      )
    ).body.chunks;
    const damaged = chunks.find((chunk) => chunk.sectionPath.join('/') === 'Returns policy/Damaged goods');
    expect(damaged).toBeDefined();
    expect(content.slice(damaged!.start, damaged!.end)).toContain('forty-eight hours');
    const log = await admin.get<{ entries: { event: string; actor: { kind: string } }[] }>(
      `${K}/${agentId}/documents/${added.id}/log`,
    );
    expect(log.body.entries.map((entry) => entry.event)).toEqual([
      'DocumentAdded',
      'DocumentProcessingStarted',
      'DocumentReady',
    ]);
    expect(log.body.entries.map((entry) => entry.actor.kind)).toEqual(['apiKey', 'system', 'system']);
    const download = await fetch(`${api.url}${K}/${agentId}/documents/${added.id}/download`, {
      headers: { 'x-api-key': ADMIN_KEY },
    });
    expect(download.headers.get('content-type')).toContain('text/markdown');
    expect(await download.text()).toBe(text);
    for (const mode of ['bm25', 'vector'])
      expect((await search(agentId, 'refund shoes', { mode }))[0]).toBeDefined();
    const reranked = await search(agentId, 'refund within thirty days', { rerank: true });
    expect(reranked[0]!.text).toContain('thirty days');
  });

  const upload = async (
    agentId: string,
    file: string,
    bytes: Buffer,
    fields: Record<string, string> = {},
  ) => {
    const form = new FormData();
    for (const [name, value] of Object.entries(fields)) form.append(name, value);
    form.append('file', new Blob([new Uint8Array(bytes)]), file);
    const response = await fetch(`${api.url}${K}/${agentId}/documents`, {
      method: 'POST',
      headers: { 'x-api-key': ADMIN_KEY },
      body: form,
    });
    return { status: response.status, body: (await response.json()) as Doc };
  };

  it('takes uploaded PDF and DOCX files to Ready, sniffing the type from the bytes, never the name', async () => {
    const agentId = await agent(await space());
    for (const [file, mime] of [
      ['sample.pdf', 'application/pdf'],
      ['sample.docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'],
    ] as const) {
      const added = await upload(agentId, file, readFileSync(join(FIXTURES, file)));
      expect(added.status).toBe(201);
      expect(added.body).toMatchObject({ name: file, status: 'Pending' });
      const ready = await settled(agentId, added.body.id);
      expect(ready).toMatchObject({ status: 'Ready', mimeType: mime });
    }
    // A text file named .pdf is text; a corrupt PDF fails with a reason, never a crash.
    const fake = await upload(agentId, 'not-really.pdf', Buffer.from('plain words here'), {
      name: 'renamed.pdf',
    });
    expect(fake.body.name).toBe('renamed.pdf');
    expect(await settled(agentId, fake.body.id)).toMatchObject({ status: 'Ready', mimeType: 'text/plain' });
    const corrupt = await upload(agentId, 'corrupt.pdf', readFileSync(join(FIXTURES, 'corrupt.pdf')));
    const failed = await settled(agentId, corrupt.body.id);
    expect(failed.status).toBe('Failed');
    expect(failed.error?.reason).toMatch(/parse_failed|unsupported_type/);
    // Search finds text from inside the PDF (page 2) and the DOCX (under its headings).
    const hiring = await search(agentId, 'paragraph about hiring', { mode: 'bm25' });
    expect(hiring[0]).toMatchObject({ documentName: 'sample.pdf' });
    expect(hiring[0]!.text).toContain('hiring');
    const linux = await search(agentId, 'package manager distribution', { mode: 'bm25' });
    expect(linux[0]).toMatchObject({ documentName: 'sample.docx', sectionPath: ['Install', 'Linux'] });
  });

  it('refuses malformed uploads with a 4xx', async () => {
    const agentId = await agent(await space());
    const empty = await upload(agentId, 'empty.txt', Buffer.alloc(0));
    expect([empty.status, (empty.body as unknown as { error: { code: string } }).error.code]).toEqual([
      400,
      'empty_file',
    ]);
    const badScope = await upload(agentId, 'a.txt', Buffer.from('x'), { scope: 'planet' });
    expect(badScope.status).toBe(400);
    const noFile = await fetch(`${api.url}${K}/${agentId}/documents`, {
      method: 'POST',
      headers: { 'x-api-key': ADMIN_KEY },
      body: (() => {
        const form = new FormData();
        form.append('name', 'x');
        return form;
      })(),
    });
    expect(noFile.status).toBe(400);
    const twoFiles = new FormData();
    twoFiles.append('file', new Blob(['a']), 'a.txt');
    twoFiles.append('file', new Blob(['b']), 'b.txt');
    const refused = await fetch(`${api.url}${K}/${agentId}/documents`, {
      method: 'POST',
      headers: { 'x-api-key': ADMIN_KEY },
      body: twoFiles,
    });
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(refused.status).toBeLessThan(500);
    const tooBig = await upload(agentId, 'big.txt', Buffer.alloc(26 * 1024 * 1024, 97));
    expect(tooBig.status).toBe(413);
    expect((tooBig.body as unknown as { error: { type: string } }).error).toBeDefined();
    expect((await list(agentId)).length).toBe(0);
  });

  it('keeps search isolated between Agents and Spaces, and serves Space and Global documents to their Agents', async () => {
    const [spaceA, spaceB] = [await space(), await space()];
    const [a1, a2, b1] = [await agent(spaceA), await agent(spaceA), await agent(spaceB)];
    const secret = 'The vault combination is zebra-quartz-seven.';
    const own = (await admin.post<Doc>(`${K}/${a1}/documents`, { name: 'vault.md', text: secret })).body;
    const shared = (
      await admin.post<Doc>(`${K}/${a1}/documents`, {
        name: 'lunch.md',
        text: 'Lunch is served at noon in the atrium.',
        scope: 'space',
      })
    ).body;
    const global = (
      await admin.post<Doc>(`${K}/${b1}/documents`, {
        name: 'holidays.md',
        text: 'The office closes on national holidays.',
        scope: 'global',
      })
    ).body;
    for (const [agentId, doc] of [
      [a1, own],
      [a1, shared],
      [b1, global],
    ] as const)
      await settled(agentId, doc.id);

    const docsOf = async (agentId: string, query: string) =>
      (await search(agentId, query, { limit: 50 })).map((h) => h.documentId);
    expect(await docsOf(a1, 'vault combination zebra')).toContain(own.id);
    for (const other of [a2, b1])
      expect(await docsOf(other, 'vault combination zebra')).not.toContain(own.id);
    expect(await docsOf(a2, 'lunch atrium noon')).toContain(shared.id);
    expect(await docsOf(b1, 'lunch atrium noon')).not.toContain(shared.id);
    for (const anyone of [a1, a2, b1])
      expect(await docsOf(anyone, 'national holidays office')).toContain(global.id);
  });

  it('fails a hostile document with a reason, skips unchanged re-processing, and re-processes when forced', async () => {
    const agentId = await agent(await space());
    const empty = (
      await admin.post<Doc>(`${K}/${agentId}/documents`, { name: 'blank.txt', text: '   \n\n   ' })
    ).body;
    const failed = await settled(agentId, empty.id);
    expect(failed.status).toBe('Failed');
    const notReady = await admin.get(`${K}/${agentId}/documents/${empty.id}/content`);
    expect([notReady.status, (notReady.body as { error: { code: string } }).error.code]).toEqual([
      409,
      'document_not_ready',
    ]);
    expect(failed.error?.reason).toEqual(expect.any(String));

    const doc = (
      await admin.post<Doc>(`${K}/${agentId}/documents`, {
        name: 'faq.md',
        text: '# FAQ\n\nOpening hours are nine to five.',
      })
    ).body;
    await settled(agentId, doc.id);
    await admin.post(`${K}/${agentId}/documents/bulk`, { action: 'reprocess', documentIds: [doc.id] });
    await settled(agentId, doc.id);
    expect((await types(doc.id)).slice(-2)).toEqual([
      'DocumentReprocessingRequested',
      'DocumentProcessingSkipped',
    ]);
    await admin.post(`${K}/${agentId}/documents/bulk`, { action: 'forceReprocess', documentIds: [doc.id] });
    await settled(agentId, doc.id);
    expect((await types(doc.id)).slice(-3)).toEqual([
      'DocumentReprocessingRequested',
      'DocumentProcessingStarted',
      'DocumentReady',
    ]);
  });

  it('replaces content: search serves the new version once Ready; deleting removes it from search and purges content', async () => {
    const agentId = await agent(await space());
    const doc = (
      await admin.post<Doc>(`${K}/${agentId}/documents`, {
        name: 'menu.md',
        text: 'Today we serve pumpkin soup.',
      })
    ).body;
    await settled(agentId, doc.id);
    expect((await search(agentId, 'pumpkin soup')).map((h) => h.documentId)).toContain(doc.id);
    await admin.put(`${K}/${agentId}/documents/${doc.id}`, { text: 'Today we serve mushroom risotto.' });
    await settled(agentId, doc.id);
    const after = await search(agentId, 'mushroom risotto', { mode: 'bm25' });
    expect(after[0]).toMatchObject({ documentId: doc.id });
    expect((await search(agentId, 'pumpkin', { mode: 'bm25' })).map((h) => h.documentId)).not.toContain(
      doc.id,
    );

    const contentHash = (await admin.get<Doc>(`${K}/${agentId}/documents/${doc.id}`)).body.contentHash;
    expect((await admin.delete(`${K}/${agentId}/documents/${doc.id}`)).status).toBe(204);
    for (let i = 0; i < 200 && !(await types(doc.id)).includes('DocumentContentPurged'); i++) {
      await api.app.get(IngestionWorker).idle();
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(await types(doc.id)).toContain('DocumentContentPurged');
    expect((await search(agentId, 'mushroom risotto', { limit: 50 })).map((h) => h.documentId)).not.toContain(
      doc.id,
    );
    expect(await api.app.get<BlobStore>(BLOB_STORE).has(contentHash)).toBe(false);
  });

  it('filters search by tags, following tag changes made after indexing', async () => {
    const agentId = await agent(await space());
    const tag = (await admin.post<{ id: string }>(`${K}/${agentId}/tags`, { name: 'HR' })).body;
    const doc = (
      await admin.post<Doc>(`${K}/${agentId}/documents`, {
        name: 'leave.md',
        text: 'Annual leave is twenty-five days.',
      })
    ).body;
    await settled(agentId, doc.id);
    const tagged = async () =>
      (await search(agentId, 'annual leave days', { tagIds: [tag.id] })).map((h) => h.documentId);
    const indexedTags = async () =>
      (await api.app.get<EventStore>(EVENT_STORE).readStream(`document-${doc.id}`)).filter(
        (event) => event.type === 'DocumentTagsIndexed',
      ).length;
    expect(await tagged()).toEqual([]);
    await admin.post(`${K}/${agentId}/documents/${doc.id}/tags/${tag.id}`);
    for (let i = 0; i < 200 && (await indexedTags()) < 1; i++) await new Promise((r) => setTimeout(r, 25));
    expect(await tagged()).toEqual([doc.id]);
    await admin.delete(`${K}/${agentId}/documents/${doc.id}/tags/${tag.id}`);
    for (let i = 0; i < 200 && (await indexedTags()) < 2; i++) await new Promise((r) => setTimeout(r, 25));
    expect(await tagged()).toEqual([]);
  });

  it('re-indexes from the log into a new index version with the same content, searches working throughout', async () => {
    const agentId = await agent(await space());
    const doc = (
      await admin.post<Doc>(`${K}/${agentId}/documents`, {
        name: 'glossary.md',
        text: '# Glossary\n\nA widget is a small gadget.',
      })
    ).body;
    await settled(agentId, doc.id);
    type Status = {
      live: string;
      stats: { chunks: number; documents: number };
      reindex: { running: boolean; result: Json | null };
      nearestNeighbours: Json[];
    };
    const before = (await admin.get<Status>(`${CORE}/knowledge-index`)).body;
    const hitsBefore = await search(agentId, 'widget gadget', { limit: 50 });
    const started = await admin.post(`${CORE}/knowledge-index/reindex`);
    expect(started.status).toBe(202);
    // Searching while it builds keeps working.
    expect((await search(agentId, 'widget gadget')).map((h) => h.documentId)).toContain(doc.id);
    let after = (await admin.get<Status>(`${CORE}/knowledge-index`)).body;
    for (let i = 0; i < 400 && after.reindex.running; i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      after = (await admin.get<Status>(`${CORE}/knowledge-index`)).body;
    }
    expect(after.reindex).toMatchObject({ running: false, result: { from: before.live, to: after.live } });
    expect(after.live).not.toBe(before.live);
    expect(after.stats).toEqual(before.stats);
    // A few chunks per owner: exact scans, no graph.
    expect(after.nearestNeighbours).toEqual([]);
    expect(await search(agentId, 'widget gadget', { limit: 50 })).toEqual(hitsBefore);
    const key = (await admin.post<{ key: string }>(`${CORE}/api-keys`, { name: 'x', agents: [agentId] })).body
      .key;
    expect((await client(api.url, key).post(`${CORE}/knowledge-index/reindex`)).status).toBe(403);
  });

  it('refuses search when the Agent’s Knowledge Base is off', async () => {
    const agentId = await agent(await space());
    await admin.put(`${CORE}/agents/${agentId}`, { knowledgeEnabled: false });
    const refused = await admin.post(`${K}/${agentId}/search`, { query: 'anything' });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ error: { code: 'knowledge_disabled' } });
  });
});

describe('cli knowledge reindex (e2e, built CLI)', () => {
  it('rebuilds the index of a stopped instance from the log, with the same documents', async () => {
    const api = await startTestApi();
    const admin = client(api.url);
    const spaceId = (await admin.post<{ id: string }>(`${CORE}/spaces`, { name: uniqueName('C') })).body.id;
    const agentId = (await admin.post<{ id: string }>(`${CORE}/agents`, { spaceId, name: 'R' })).body.id;
    const doc = (
      await admin.post<{ id: string }>(`${CORE}/knowledge/${agentId}/documents`, {
        name: 'a.md',
        text: '# A\n\nAlpha beta.',
      })
    ).body;
    for (let i = 0; i < 200; i++) {
      await api.app.get(IngestionWorker).idle();
      const status = (await admin.get<{ status: string }>(`${CORE}/knowledge/${agentId}/documents/${doc.id}`))
        .body.status;
      if (status === 'Ready') break;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    await api.close();
    const { execFileSync } = await import('node:child_process');
    const stdout = execFileSync(
      process.execPath,
      [join(process.cwd(), 'dist/apps/cli/src/main.js'), 'knowledge', 'reindex'],
      {
        env: { PATH: process.env.PATH ?? '', DATA_DIR: api.config.dataDir, LOG_LEVEL: 'error' },
        encoding: 'utf8',
      },
    );
    expect(stdout).toContain('switched searches from chunks_v1 to chunks_v2: 1 documents');
  });
});

describe('knowledge ingestion with an upstream embedding model (e2e)', () => {
  it('fails a document with the upstream reason after retries, and processes it once the upstream recovers', async () => {
    const upstream = await startFakeUpstream({ failWith: { status: 500 } });
    const modelsFile = writeModelsFile([
      `providers: { fake: { baseUrl: '${upstream.url}' } }`,
      'defaults: { embedding: fake-embed }',
      'models:',
      '  - { key: fake-embed, modelId: fake-embedding-model, provider: fake, kind: embedding }',
    ]);
    const api = await startTestApi({ MODELS_FILE: modelsFile });
    try {
      const admin = client(api.url);
      const spaceId = (await admin.post<{ id: string }>(`${CORE}/spaces`, { name: uniqueName('U') })).body.id;
      const agentId = (await admin.post<{ id: string }>(`${CORE}/agents`, { spaceId, name: 'R' })).body.id;
      const get = async (id: string) =>
        (await admin.get<Doc>(`${CORE}/knowledge/${agentId}/documents/${id}`)).body;
      const doc = (
        await admin.post<Doc>(`${CORE}/knowledge/${agentId}/documents`, {
          name: 'a.md',
          text: 'Alpha beta gamma.',
        })
      ).body;
      let current = await get(doc.id);
      for (let i = 0; i < 300 && current.status !== 'Failed'; i++) {
        await new Promise((resolve) => setTimeout(resolve, 25));
        current = await get(doc.id);
      }
      expect(current.status).toBe('Failed');
      expect(current.error).toMatchObject({ reason: 'upstream_error' });
      expect(upstream.requests.filter((r) => r.path === '/v1/embeddings').length).toBe(3);

      upstream.reset();
      upstream.set({ failWith: undefined });
      await admin.post(`${CORE}/knowledge/${agentId}/documents/bulk`, {
        action: 'forceReprocess',
        documentIds: [doc.id],
      });
      for (let i = 0; i < 300 && current.status !== 'Ready'; i++) {
        await new Promise((resolve) => setTimeout(resolve, 25));
        current = await get(doc.id);
      }
      expect(current.status).toBe('Ready');
    } finally {
      await api.close();
      await upstream.close();
    }
  });
});
