// Provenance queries (issue 25 §3): GET /provenance lists exactly the answers that cited a document (and a chunk of
// it, and used the Agent's prompt), to whoever may read them (admins every answer, a user their own); after the
// document's deletion the same answers are still listed, with the document shown deleted.
import { waitUntil } from '#testing/fixtures';
import { client, CORE, startTestApi, uniqueName, type TestApi, registeredPerson } from './support/api.js';
import { VOLCANOES } from './support/documents.js';

const LLM = `${CORE}/llm`;
const K = `${CORE}/knowledge`;

const CHEESES = [
  '# Cheeses of France',
  '',
  '## Roquefort',
  '',
  'Roquefort is a blue cheese made from sheep milk and aged in the caves of Combalou.',
  '',
].join('\n');

type Turn = {
  conversationId: string;
  message: { id: string; citations: { documentId: string; start: number; end: number }[] };
};
type Answer = {
  conversationId: string;
  messageId: string;
  userId: string;
  version: string;
  messageDeleted: boolean;
};
type Provenance = {
  source: { kind: string; id: string; status: string; name: string | null; currentVersion: string | null };
  data: Answer[];
  nextCursor: string | null;
};

describe('provenance queries (e2e)', () => {
  let api: TestApi;
  let admin: ReturnType<typeof client>;

  beforeAll(async () => {
    api = await startTestApi();
    admin = client(api.url);
  }, 60_000);
  afterAll(async () => {
    await api.close();
    expect(api.logs()).not.toContain('unhandled error');
  });

  it('lists exactly the answers that cited a document, to whoever may read them, also after its deletion', async () => {
    const space = await admin.post<{ id: string }>(`${CORE}/spaces`, { name: uniqueName('Provenance') });
    const agent = await admin.post<{ id: string }>(`${CORE}/agents`, {
      spaceId: space.body.id,
      name: uniqueName('Librarian'),
    });
    expect(agent.status).toBe(201);
    const agentId = agent.body.id;
    const addDocument = async (name: string, text: string) => {
      const added = await admin.post<{ id: string }>(`${K}/${agentId}/documents`, { name, text });
      expect(added.status).toBe(201);
      await waitUntil(
        async () =>
          (await admin.get<{ status: string }>(`${K}/${agentId}/documents/${added.body.id}`)).body.status ===
          'Ready',
        30_000,
      );
      return added.body.id;
    };
    const volcanoes = await addDocument('volcanoes.md', VOLCANOES);
    await addDocument('cheeses.md', CHEESES);

    // A key acts as its user: both people are members of the Agent's Space (the stranger reads no one else's answers).
    const [readerEmail, strangerEmail] = [
      `reader-${Date.now()}@example.com`,
      `stranger-${Date.now()}@example.com`,
    ];
    for (const email of [readerEmail, strangerEmail])
      expect(
        (
          await admin.post(`${CORE}/spaces/${space.body.id}/members`, {
            userId: await registeredPerson(api.url, email),
            role: 'member',
          })
        ).status,
      ).toBe(201);
    const userKey = await admin.post<{ key: string; ownerUserId: string }>(`${CORE}/api-keys`, {
      name: uniqueName('key'),
      owner: { email: readerEmail },
      agents: [agentId],
    });
    expect(userKey.status).toBe(201);
    const user = client(api.url, userKey.body.key);
    const strangerKey = await admin.post<{ key: string; ownerUserId: string }>(`${CORE}/api-keys`, {
      name: uniqueName('key'),
      owner: { email: strangerEmail },
      agents: [agentId],
    });
    const stranger = client(api.url, strangerKey.body.key);

    const ask = async (as: ReturnType<typeof client>, message: string) => {
      const turn = await as.post<Turn>(`${LLM}/${agentId}/conversation`, { message });
      expect([200, 201]).toContain(turn.status);
      return turn.body;
    };
    const turns = [
      await ask(user, 'Which volcano is in Sicily?'),
      await ask(user, 'What did the eruption of Vesuvius bury?'),
      await ask(admin, 'Which volcano stands near the Bay of Naples?'),
      await ask(user, 'Which blue cheese is made from sheep milk?'),
    ];
    const citing = turns.filter((turn) => turn.message.citations.some((c) => c.documentId === volcanoes));
    expect(citing.length).toBeGreaterThanOrEqual(2);
    expect(turns[3]!.message.citations.some((c) => c.documentId === volcanoes)).toBe(false);

    const provenanceOf = async (source: string, as = admin) => {
      const reply = await as.get<Provenance>(
        `${CORE}/provenance?source=${encodeURIComponent(source)}&limit=200`,
      );
      expect(reply.status).toBe(200);
      return reply.body;
    };
    const ids = (body: Provenance) => body.data.map((answer) => answer.messageId).toSorted();
    const expected = citing.map((turn) => turn.message.id).toSorted();
    await waitUntil(
      async () => (await provenanceOf(`document:${volcanoes}`)).data.length === citing.length,
      30_000,
    );

    // Exactly the answers that cited it (admins: everyone's).
    const before = await provenanceOf(`document:${volcanoes}`);
    expect(ids(before)).toEqual(expected);
    expect(before.source).toMatchObject({
      kind: 'document',
      id: volcanoes,
      status: 'live',
      currentVersion: '1',
    });
    expect(ids(await provenanceOf(`document:${volcanoes}@1`))).toEqual(expected);
    expect((await provenanceOf(`document:${volcanoes}@2`)).data).toEqual([]);
    // With retrieved=true, also the answers whose prompt held it uncited (the cheese question's retrieval).
    const retrieved = await admin.get<Provenance>(
      `${CORE}/provenance?source=document:${volcanoes}&retrieved=true&limit=200`,
    );
    expect(ids(retrieved.body)).toEqual(expect.arrayContaining(expected));
    expect(
      retrieved.body.data.filter((answer) => !(answer as Answer & { cited: boolean }).cited).length,
    ).toBe(retrieved.body.data.length - expected.length);
    // The user sees their own answers only; another user of the Agent sees none of them.
    const own = citing.filter((turn) => turn !== turns[2]).map((turn) => turn.message.id);
    expect(ids(await provenanceOf(`document:${volcanoes}`, user))).toEqual(own.toSorted());
    expect(
      (await provenanceOf(`document:${volcanoes}`, user)).data.every(
        (a) => a.userId === userKey.body.ownerUserId,
      ),
    ).toBe(true);
    expect((await provenanceOf(`document:${volcanoes}`, stranger)).data).toEqual([]);

    // A chunk: the answers whose cited passages fall in it.
    const first = citing[0]!.message.citations.find((c) => c.documentId === volcanoes)!;
    const chunks = await admin.get<{ chunks: { index: number; start: number; end: number }[] }>(
      `${K}/${agentId}/documents/${volcanoes}/chunks`,
    );
    expect(chunks.status).toBe(200);
    const chunk = chunks.body.chunks.find((c) => c.start < first.end && c.end > first.start)!;
    const inChunk = citing
      .filter((turn) =>
        turn.message.citations.some(
          (c) => c.documentId === volcanoes && c.start < chunk.end && c.end > chunk.start,
        ),
      )
      .map((turn) => turn.message.id)
      .toSorted();
    expect(ids(await provenanceOf(`chunk:${volcanoes}:1:${chunk.index}`))).toEqual(inChunk);

    // The prompt: every answer of the Agent used it.
    expect((await provenanceOf(`prompt:${agentId}`)).data).toHaveLength(turns.length);

    // Bad sources are 400 naming `source`.
    const bad = await admin.get<{ error: { param: string } }>(`${CORE}/provenance?source=file:x`);
    expect([bad.status, bad.body.error.param]).toEqual([400, 'source']);
    expect((await admin.get(`${CORE}/provenance`)).status).toBe(400);

    // A memory version: the answers whose prompt held it stay listed under that version after a rollback.
    const M = `${CORE}/memory/${agentId}/memories`;
    expect((await admin.put(`${CORE}/agents/${agentId}`, { memoryEnabled: true })).status).toBe(200);
    const memory = await admin.post<{ id: string }>(M, {
      text: 'My locker code is 4711.',
      bucket: 'personal',
    });
    expect(memory.status).toBe(201);
    const recalled = await ask(admin, 'What is my locker code?');
    expect((await admin.patch(`${M}/${memory.body.id}`, { text: 'My locker code is 9000.' })).status).toBe(
      200,
    );
    expect((await admin.post(`${M}/${memory.body.id}/rollback`, { version: 1 })).status).toBeLessThan(300);
    await waitUntil(async () => (await provenanceOf(`memory:${memory.body.id}@1`)).data.length === 1, 30_000);
    expect((await provenanceOf(`memory:${memory.body.id}@1`)).data).toEqual([
      expect.objectContaining({ messageId: recalled.message.id, version: '1' }),
    ]);
    expect((await provenanceOf(`memory:${memory.body.id}@3`)).data).toEqual([]);

    // Deleted: the same answers, the document shown deleted.
    expect((await admin.delete(`${K}/${agentId}/documents/${volcanoes}`)).status).toBeLessThan(300);
    const after = await provenanceOf(`document:${volcanoes}`);
    expect(ids(after)).toEqual(expected);
    expect(after.source).toMatchObject({ status: 'deleted', name: 'volcanoes.md' });
    // Its chunks are purged with it: a chunk is then asked as its document version.
    await waitUntil(
      async () =>
        (
          await admin.get(
            `${CORE}/provenance?source=${encodeURIComponent(`chunk:${volcanoes}:1:${chunk.index}`)}`,
          )
        ).status === 409,
      30_000,
    );
    // To anyone but an admin, a gone chunk is an empty answer (no hint that the document existed).
    const unseen = await provenanceOf(`chunk:${volcanoes}:1:${chunk.index}`, user);
    expect(unseen).toMatchObject({ source: { status: 'unknown' }, data: [] });
  }, 120_000);
});
