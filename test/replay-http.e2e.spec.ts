// Replay over HTTP (POST /replays, the web app's Replay page): an admin replays an Agent's recorded turns against a
// second model (a fake upstream) and gets each turn's old and new answers with their citations, tokens and cost; the
// run is recorded with who ran it (ReplayRan, in the audit trail) and the conversations stay as they were. Anyone
// else is refused; a request that names no turns is 400; an unknown model 404.
import { startFakeUpstream, type FakeUpstream } from '#testing/fake-openai-upstream';
import type { ReplayReport } from '#audit';
import { client, CORE, startTestApi, uniqueName, writeModelsFile, type TestApi } from './support/api.js';
import { agentInNewSpace, LLM } from './support/scenario.js';

describe('replay over HTTP (e2e)', () => {
  let api: TestApi;
  let upstream: FakeUpstream;
  let admin: ReturnType<typeof client>;
  let agentId: string;

  beforeAll(async () => {
    upstream = await startFakeUpstream({ reply: 'A newer answer.' });
    api = await startTestApi({
      MODELS_FILE: writeModelsFile([
        'providers:',
        `  fake: { baseUrl: '${upstream.url}' }`,
        'models:',
        '  - { key: second-chat, modelId: fake-model, provider: fake, kind: chat, contextWindow: 64000, pricing: { input: 1, output: 2 } }',
      ]),
    });
    admin = client(api.url);
    ({ agentId } = await agentInNewSpace(
      admin,
      { name: uniqueName('Replayed'), model: 'offline-chat', systemPrompt: 'Answer briefly.' },
      uniqueName('Replay'),
    ));
    for (const message of ['What is a caldera?', 'And a fumarole?']) {
      const turn = await admin.post(`${LLM}/${agentId}/conversation`, { message });
      expect([200, 201]).toContain(turn.status);
    }
  }, 60_000);
  afterAll(async () => {
    await api.close();
    await upstream.close();
  });

  it("replays an Agent's turns against another model, side by side, and records who ran it", async () => {
    const conversationsBefore = await admin.get<{ data: unknown[] }>(`${LLM}/${agentId}/conversation`);
    const replay = await admin.post<{ id: string; report: ReplayReport }>(`${CORE}/replays`, {
      model: 'second-chat',
      agentId,
      limit: 5,
    });
    expect(replay.status).toBe(200);
    expect(replay.body.id).toMatch(/^rpl_/);
    const { report } = replay.body;
    expect(report.model).toBe('second-chat');
    expect(report.totals).toMatchObject({ turns: 2, replayed: 2 });
    expect(report.turns.map((turn) => turn.question)).toEqual(['What is a caldera?', 'And a fumarole?']);
    for (const turn of report.turns) {
      expect(turn.old.model).toBe('offline-chat');
      expect(turn.old.content).toBeTruthy();
      expect(turn.new?.content).toBe('A newer answer.');
      expect(turn.promptVerified).toBe(true);
    }
    expect(await admin.get(`${LLM}/${agentId}/conversation`)).toMatchObject({
      body: conversationsBefore.body,
    });

    const trail = await admin.get<{ data: { eventType: string; resource: { id: string } }[] }>(
      `${CORE}/audit?action=ReplayRan`,
    );
    expect(trail.body.data).toEqual([
      expect.objectContaining({
        eventType: 'ReplayRan',
        resource: expect.objectContaining({ id: replay.body.id }),
      }),
    ]);
  });

  it('refuses anyone but an admin, a request naming no turns, and an unknown model', async () => {
    const key = await admin.post<{ key: string }>(`${CORE}/api-keys`, {
      name: uniqueName('member'),
      owner: { email: `member-${Date.now()}@example.com` },
      agents: 'all',
    });
    const member = await client(api.url, key.body.key).post<{ error: { code: string } }>(`${CORE}/replays`, {
      model: 'second-chat',
      agentId,
    });
    expect(member.status).toBe(403);
    expect(member.body.error.code).toBe('admin_required');
    const nothing = await admin.post<{ error: { code: string } }>(`${CORE}/replays`, {
      model: 'second-chat',
    });
    expect(nothing.status).toBe(400);
    expect(nothing.body.error.code).toBe('missing_field');
    const unknown = await admin.post<{ error: { code: string } }>(`${CORE}/replays`, {
      model: 'nope',
      agentId,
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('model_not_found');
  });
});
