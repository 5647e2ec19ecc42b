// The section-summary index end to end: build (incremental and full) as commands with events, progress and status,
// the tree over every level's documents the Agent can search and nothing else, the closest summary in search when
// the Agent's includeAiSummary is on, a deleted document's summaries pruned for good, and a cancelled build that
// leaves the previous tree serving (the model call under way is aborted).
import { EVENT_STORE, type EventStore } from '#event-store';
import { BLOB_STORE, type BlobStore } from '#blob-store';
import { IngestionWorker } from '#knowledge/ingestion.worker';
import { SummaryIndexWorker } from '#knowledge/summary/summary-index.worker';
import { startFakeUpstream, type FakeUpstream } from '#testing/fake-openai-upstream';
import {
  ADMIN_KEY,
  client,
  CORE,
  startTestApi,
  tempDataDir,
  uniqueName,
  type TestApi,
  writeModelsFile,
} from './support/api.js';
import { agentInNewSpace, newAgent, newSpace, type Json } from './support/scenario.js';
import { spawnApi, stopProcess } from './support/process.js';

type Status = {
  status: 'none' | 'building' | 'ready';
  serving: {
    buildId: string;
    nodeCount: number;
    levels: number;
    leafCount: number;
    documentCount: number;
  } | null;
  build: {
    buildId: string;
    state: string;
    reusedSummaries: number | null;
    level: number;
    groupsTotal: number;
  } | null;
};
type TreeNode = { id: string; level: number; summary: string; children: string[]; documentIds: string[] };
type Tree = { rootId: string | null; levels: number; leafCount: number; nodes: TreeNode[] };
type Summary = { nodeId: string; text: string; documentIds: string[]; buildId: string } | null;

const K = `${CORE}/knowledge`;
const paragraphs = (topic: string, facts: string[]) =>
  [`# ${topic}`, '', ...facts.flatMap((fact) => [fact, ''])].join('\n');

describe('section-summary index (e2e)', () => {
  let api: TestApi;
  let upstream: FakeUpstream;
  let admin: ReturnType<typeof client>;
  /** The models file: the offline models plus `upstream-chat` on the fake upstream. */
  let modelsFile: string;

  beforeAll(async () => {
    upstream = await startFakeUpstream();
    modelsFile = writeModelsFile([
      `providers: { fake: { baseUrl: '${upstream.url}' } }`,
      'models:',
      '  - { key: upstream-chat, modelId: fake-chat-model, provider: fake, kind: chat }',
    ]);
    api = await startTestApi({ MODELS_FILE: modelsFile });
    admin = client(api.url);
  });
  afterAll(async () => {
    await api.close();
    await upstream.close();
  });

  const space = () => newSpace(admin, uniqueName('S'));
  const agent = async (spaceId: string, settings: Json = {}) => {
    const id = await newAgent(admin, spaceId, { name: 'Reader' });
    if (Object.keys(settings).length > 0)
      expect((await admin.put(`${CORE}/agents/${id}`, settings)).status).toBe(200);
    return id;
  };
  const addReady = async (agentId: string, name: string, text: string, scope = 'agent') => {
    const doc = (await admin.post<{ id: string }>(`${K}/${agentId}/documents`, { name, text, scope })).body;
    for (let i = 0; i < 400; i++) {
      await api.app.get(IngestionWorker).idle();
      const current = (await admin.get<{ status: string }>(`${K}/${agentId}/documents/${doc.id}`)).body;
      if (current.status === 'Ready') return doc.id;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`${name} did not become Ready`);
  };
  const status = async (agentId: string) => (await admin.get<Status>(`${K}/${agentId}/summary-index`)).body;
  const settled = async (agentId: string): Promise<Status> => {
    for (let i = 0; i < 400; i++) {
      await api.app.get(SummaryIndexWorker).idle();
      const current = await status(agentId);
      if (current.status !== 'building') return current;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error('the summary build did not finish');
  };
  const tree = async (agentId: string) => (await admin.get<Tree>(`${K}/${agentId}/summary-index/tree`)).body;
  const search = async (agentId: string, query: string) =>
    (
      await admin.post<{ hits: { documentId: string }[]; summary?: Summary }>(`${K}/${agentId}/search`, {
        query,
      })
    ).body;

  it('builds a tree over the Agent’s own and Space documents, serves the closest summary, rebuilds and prunes', async () => {
    const spaceId = await space();
    const agentId = await agent(spaceId, { includeAiSummary: true });
    const otherAgent = await agent(await space(), { includeAiSummary: true });
    const returns = await addReady(
      agentId,
      'returns.md',
      paragraphs('Returns policy', [
        'Customers may return unworn shoes within thirty days of delivery for a full refund.',
        'Refunds go back to the original payment card within five working days.',
        'Sale items can be exchanged for store credit but are not refunded.',
      ]),
    );
    const rockets = await addReady(
      agentId,
      'rockets.md',
      paragraphs('Rocket engines', [
        'A liquid rocket engine burns kerosene with liquid oxygen in its combustion chamber.',
        'Thrust is produced as exhaust gas accelerates through the bell-shaped nozzle.',
        'Turbopumps feed propellant to the injector plate at very high pressure.',
      ]),
    );
    const bread = await addReady(
      agentId,
      'bread.md',
      paragraphs('Sourdough', [
        'Sourdough bread rises with a starter of wild yeast and lactic acid bacteria.',
        'The dough ferments slowly overnight before it is shaped and baked in a hot oven.',
      ]),
    );
    const handbook = await addReady(
      agentId,
      'handbook.md',
      paragraphs('Staff handbook', ['Holiday requests go to the team lead two weeks ahead.']),
      'space',
    );
    const foreign = await addReady(
      otherAgent,
      'other.md',
      paragraphs('Other', ['Nothing to see here at all.']),
    );

    expect(await status(agentId)).toMatchObject({ status: 'none', serving: null, build: null });
    expect((await admin.get(`${K}/${agentId}/summary-index/tree`)).status).toBe(409);
    const requested = await admin.post<Status>(`${K}/${agentId}/summary-index/build`, {});
    expect(requested.status).toBe(202);
    expect(requested.body.build).toMatchObject({
      state: expect.stringMatching(/requested|running|completed/),
    });

    const built = await settled(agentId);
    expect(built.status).toBe('ready');
    expect(built.build).toMatchObject({ state: 'completed', reusedSummaries: 0 });
    expect(built.serving).toMatchObject({ documentCount: 4 });
    expect(built.serving!.leafCount).toBeGreaterThanOrEqual(4);
    const first = await tree(agentId);
    expect(first.nodes).toHaveLength(built.serving!.nodeCount);
    const root = first.nodes.find((node) => node.id === first.rootId)!;
    expect(root.level).toBe(first.levels);
    expect(new Set(root.documentIds)).toEqual(new Set([returns, rockets, bread, handbook]));
    expect(first.nodes.flatMap((node) => node.documentIds)).not.toContain(foreign);
    for (const node of first.nodes.filter((n) => n.level > 1))
      expect(node.children.length).toBeGreaterThan(0);

    // The closest summary comes with the hits; an Agent without the toggle gets none, one without an index null.
    const found = await search(agentId, 'kerosene liquid oxygen rocket nozzle thrust');
    expect(found.summary).not.toBeNull();
    expect(found.summary!.documentIds).toContain(rockets);
    expect(found.summary!.text).toMatch(/rocket|kerosene|thrust|nozzle/i);
    expect(found.summary!.buildId).toBe(built.serving!.buildId);
    expect((await search(otherAgent, 'anything')).summary).toBeNull();
    const plain = await agent(spaceId);
    expect('summary' in (await search(plain, 'refund'))).toBe(false);

    // Incremental: nothing changed, every summary is reused; full: every group is summarised again.
    await admin.post(`${K}/${agentId}/summary-index/build`, {});
    const again = await settled(agentId);
    expect(again.build).toMatchObject({ state: 'completed', reusedSummaries: built.serving!.nodeCount });
    expect(again.serving!.buildId).not.toBe(built.serving!.buildId);
    expect((await admin.post(`${K}/${agentId}/summary-index/rebuild`)).status).toBe(202);
    expect((await settled(agentId)).build).toMatchObject({ state: 'completed', reusedSummaries: 0 });

    // A deleted document's summaries leave the tree for good; an incremental build writes those groups again.
    expect((await admin.delete(`${K}/${agentId}/documents/${rockets}`)).status).toBe(204);
    let pruned = await settled(agentId);
    for (let i = 0; i < 400 && (pruned.serving!.documentCount !== 3 || pruned.status !== 'ready'); i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      pruned = await settled(agentId);
    }
    expect(pruned).toMatchObject({ status: 'ready', build: { state: 'completed' } });
    expect(pruned.serving!.documentCount).toBe(3);
    const after = await tree(agentId);
    expect(after.nodes.length).toBeGreaterThan(0);
    expect(after.nodes.flatMap((node) => node.documentIds)).not.toContain(rockets);
    expect(JSON.stringify(after)).not.toMatch(/kerosene/);
    const summary = (await search(agentId, 'kerosene rocket')).summary;
    expect(summary?.documentIds ?? []).not.toContain(rockets);

    const events = (
      await api.app.get<EventStore>(EVENT_STORE).readStream(`knowledge-summary-index-${agentId}`)
    ).map((event) => event.type);
    expect(events.slice(0, 2)).toEqual(['SummaryBuildRequested', 'SummaryBuildStarted']);
    expect(events).toContain('SummaryBuildProgressed');
    expect(events.filter((type) => type === 'SummaryBuildCompleted')).toHaveLength(4);
    expect(events.slice(events.indexOf('SummaryTreePruned'))).toEqual([
      'SummaryTreePruned',
      'SummaryBuildRequested',
      'SummaryBuildStarted',
      'SummaryBuildProgressed',
      'SummaryBuildCompleted',
    ]);
  });

  it('cancels a build under way: the model call is aborted and the previous tree keeps serving', async () => {
    const agentId = await agent(await space(), { includeAiSummary: true, model: 'upstream-chat' });
    await addReady(
      agentId,
      'notes.md',
      paragraphs('Field notes', ['Herons nest in tall trees near the lake shore.', 'Otters hunt at dusk.']),
    );
    await admin.post(`${K}/${agentId}/summary-index/build`, {});
    const built = await settled(agentId);
    expect(built).toMatchObject({ status: 'ready', build: { state: 'completed' } });
    expect(upstream.requests.some((request) => request.path === '/v1/chat/completions')).toBe(true);

    upstream.set({ hang: true });
    const aborted = upstream.aborted;
    expect((await admin.post(`${K}/${agentId}/summary-index/rebuild`)).status).toBe(202);
    expect((await admin.post(`${K}/${agentId}/summary-index/build`, {})).body).toMatchObject({
      error: { code: 'summary_build_running' },
    });
    let current = await status(agentId);
    for (let i = 0; i < 400 && current.build?.state !== 'running'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      current = await status(agentId);
    }
    expect(current).toMatchObject({ status: 'building', build: { state: 'running' } });
    const cancelled = await admin.post<Status>(`${K}/${agentId}/summary-index/cancel`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.build).toMatchObject({ state: 'cancelled' });
    const after = await settled(agentId);
    expect(after).toMatchObject({ status: 'ready', build: { state: 'cancelled' } });
    expect(after.serving!.buildId).toBe(built.serving!.buildId);
    for (let i = 0; i < 200 && upstream.aborted === aborted; i++)
      await new Promise((resolve) => setTimeout(resolve, 25));
    expect(upstream.aborted).toBeGreaterThan(aborted);
    expect((await search(agentId, 'herons')).summary).toMatchObject({ buildId: built.serving!.buildId });
    expect((await admin.post(`${K}/${agentId}/summary-index/cancel`)).body).toMatchObject({
      error: { code: 'no_summary_build' },
    });
    upstream.set({ hang: false });

    // Deleting the Agent removes its tree from the blob store and closes its index.
    const stream = `knowledge-summary-index-${agentId}`;
    const store = api.app.get<EventStore>(EVENT_STORE);
    const completed = (await store.readStream(stream)).find(
      (event) => event.type === 'SummaryBuildCompleted',
    )!;
    const treeBlobId = (completed.data as { treeBlobId: string }).treeBlobId;
    const blobs = api.app.get<BlobStore>(BLOB_STORE);
    expect(await blobs.has(treeBlobId)).toBe(true);
    expect((await admin.delete(`${CORE}/agents/${agentId}`)).status).toBe(204);
    let last = '';
    for (let i = 0; i < 400 && last !== 'SummaryIndexDeleted'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      last = (await store.readStream(stream)).at(-1)!.type;
    }
    expect(last).toBe('SummaryIndexDeleted');
    expect(await blobs.has(treeBlobId)).toBe(false);
  });

  it('resumes a build after a SIGKILL of the api: the restarted process builds it to completion', async () => {
    const dataDir = tempDataDir();
    const env = { DATA_DIR: dataDir, ADMIN_API_KEY: ADMIN_KEY, MODELS_FILE: modelsFile };
    const first = await spawnApi(env);
    const api = client(first.url);
    const { agentId } = await agentInNewSpace(api, { name: 'R' }, uniqueName('C'));
    await api.put(`${CORE}/agents/${agentId}`, { model: 'upstream-chat' });
    const doc = (
      await api.post<{ id: string }>(`${K}/${agentId}/documents`, {
        name: 'birds.md',
        text: '# Birds\n\nHerons nest in tall trees.\n\nSwifts sleep on the wing.',
      })
    ).body;
    let docStatus = '';
    for (let i = 0; i < 400 && docStatus !== 'Ready'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      docStatus = (await api.get<{ status: string }>(`${K}/${agentId}/documents/${doc.id}`)).body.status;
    }
    expect(docStatus).toBe('Ready');

    // The model hangs: the build is running (its summary call in flight) when the process is killed.
    upstream.set({ hang: true });
    await api.post(`${K}/${agentId}/summary-index/build`, {});
    let state = '';
    for (let i = 0; i < 400 && state !== 'running'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      state = (await api.get<Status>(`${K}/${agentId}/summary-index`)).body.build?.state ?? '';
    }
    expect(state).toBe('running');
    first.child.kill('SIGKILL');
    await new Promise((resolve) => first.child.once('exit', resolve));
    upstream.set({ hang: false });

    const second = await spawnApi(env);
    try {
      const again = client(second.url);
      let after = (await again.get<Status>(`${K}/${agentId}/summary-index`)).body;
      for (let i = 0; i < 400 && after.status !== 'ready'; i++) {
        await new Promise((resolve) => setTimeout(resolve, 25));
        after = (await again.get<Status>(`${K}/${agentId}/summary-index`)).body;
      }
      expect(after).toMatchObject({ status: 'ready', build: { state: 'completed', attempt: 2 } });
      expect(after.serving).toMatchObject({ documentCount: 1 });
    } finally {
      await stopProcess(second.child);
    }
  });
});
