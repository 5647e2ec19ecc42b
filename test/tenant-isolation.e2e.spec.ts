// Tenant isolation: routes of the core API called with another tenant's ids, by each kind of key that must not reach
// them: no answer may carry the victim's data, nothing of the victim's may change, and no answer is a success. Every
// registered route × every kind of principal is covered by the generated matrix (authorization-matrix.e2e.spec.ts);
// this table adds the cross-tenant combinations it cannot generate (another tenant's document through one's own
// Agent, one's own Agent moved into another tenant's Space). Then the rules one by one: Spaces seen and changed only
// by their creator (or through a granted Agent, read-only), Agents moved only into Spaces the caller may change,
// personal Agents their user's alone and never deletable, Agent models checked.
import { waitUntil } from '#testing/fixtures';
import {
  ADMIN_KEY,
  client,
  CORE,
  startTestApi,
  uniqueName,
  type TestApi,
  registeredPerson,
} from './support/api.js';

type Json = Record<string, unknown>;

interface Route {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  readonly path: string;
  readonly body?: unknown;
}

const SECRET = 'VICTIM-SECRET-7f3a';

describe('tenant isolation (e2e)', () => {
  let api: TestApi;
  const admin = () => client(api.url);

  beforeAll(async () => {
    api = await startTestApi();
  });
  afterAll(() => api.close());

  const issueKey = async (body: Json) => {
    const reply = await admin().post<{ id: string; key: string; ownerUserId: string }>(`${CORE}/api-keys`, {
      name: uniqueName('key'),
      ...body,
    });
    expect(reply.status).toBe(201);
    return reply.body;
  };

  /** Raw call: any body (a zip download is not JSON), as text. */
  const raw = async (key: string, route: Route) => {
    const response = await fetch(`${api.url}${route.path}`, {
      method: route.method,
      headers: {
        'x-api-key': key,
        ...(route.body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: route.body === undefined ? undefined : JSON.stringify(route.body),
    });
    return { status: response.status, text: await response.text() };
  };

  /** A tenant: a non-admin key with access to all Agents, its Space, Agent, document and tag, all named with SECRET. */
  const tenant = async (label: string) => {
    const key = await issueKey({
      owner: { email: `${label}-${Date.now()}@example.com`, name: label },
      agents: 'all',
    });
    const as = client(api.url, key.key);
    const space = await as.post<{ id: string }>(`${CORE}/spaces`, { name: `${SECRET} ${uniqueName(label)}` });
    expect(space.status).toBe(201);
    const agent = await as.post<{ id: string }>(`${CORE}/agents`, {
      spaceId: space.body.id,
      name: `${SECRET} agent`,
    });
    expect(agent.status).toBe(201);
    await as.put(`${CORE}/agents/${agent.body.id}/prompt`, { systemPrompt: `${SECRET} prompt` });
    const tag = await as.post<{ id: string }>(`${CORE}/knowledge/${agent.body.id}/tags`, {
      name: `${SECRET}-tag`,
    });
    const document = await as.post<{ id: string }>(`${CORE}/knowledge/${agent.body.id}/documents`, {
      name: `${SECRET}.txt`,
      text: `${SECRET} the quarterly numbers`,
      scope: 'space',
    });
    expect(document.status).toBe(201);
    // Ingestion finishes before the matrix, so that only an attacker could change the victim's state.
    await waitUntil(
      async () =>
        (await as.get(`${CORE}/knowledge/${agent.body.id}/documents/${document.body.id}`)).body.status ===
        'Ready',
    );
    const personal = (
      await as.get<{ data: { id: string; isPersonal: boolean }[] }>(`${CORE}/agents?limit=200`)
    ).body.data.find((candidate) => candidate.isPersonal)!;
    return {
      key,
      spaceId: space.body.id,
      agentId: agent.body.id,
      tagId: tag.body.id,
      documentId: document.body.id,
      personalId: personal.id,
    };
  };

  /** Everything the victim can read about its own things, as it reads them: compared before and after the matrix. */
  const snapshot = async (victim: Awaited<ReturnType<typeof tenant>>) => {
    const as = client(api.url, victim.key.key);
    const k = `${CORE}/knowledge/${victim.agentId}`;
    return JSON.stringify(
      await Promise.all(
        [
          `${CORE}/spaces/${victim.spaceId}`,
          `${CORE}/agents/${victim.agentId}`,
          `${CORE}/agents/${victim.personalId}`,
          `${k}/documents/${victim.documentId}`,
          `${k}/tags`,
          `${CORE}/api-keys/${victim.key.id}`,
        ].map(async (path) => {
          const reply = await as.get(path);
          const { updatedAt: _updatedAt, ...body } = reply.body as Json;
          return [path, reply.status, body];
        }),
      ),
    );
  };

  const routesAgainst = (victim: Awaited<ReturnType<typeof tenant>>, ownAgentId: string): Route[] => {
    const a = victim.agentId;
    const k = `${CORE}/knowledge/${a}`;
    const d = victim.documentId;
    const own = `${CORE}/knowledge/${ownAgentId}`;
    const llm = `${CORE}/llm/${a}`;
    const messages = [{ role: 'user', content: 'what do you know?' }];
    return [
      { method: 'GET', path: `${CORE}/spaces/${victim.spaceId}` },
      { method: 'PATCH', path: `${CORE}/spaces/${victim.spaceId}`, body: { name: 'taken over' } },
      { method: 'DELETE', path: `${CORE}/spaces/${victim.spaceId}` },
      { method: 'GET', path: `${CORE}/agents/${a}` },
      { method: 'PUT', path: `${CORE}/agents/${a}`, body: { name: 'taken over' } },
      { method: 'PUT', path: `${CORE}/agents/${a}/prompt`, body: { systemPrompt: 'leak everything' } },
      { method: 'DELETE', path: `${CORE}/agents/${a}` },
      { method: 'PUT', path: `${CORE}/agents/${ownAgentId}`, body: { spaceId: victim.spaceId } },
      { method: 'POST', path: `${CORE}/agents`, body: { spaceId: victim.spaceId, name: 'intruder' } },
      { method: 'GET', path: `${k}/documents` },
      { method: 'POST', path: `${k}/documents`, body: { name: 'planted.txt', text: 'planted' } },
      { method: 'GET', path: `${k}/documents/${d}` },
      { method: 'PUT', path: `${k}/documents/${d}`, body: { name: 'renamed.txt' } },
      { method: 'DELETE', path: `${k}/documents/${d}` },
      { method: 'GET', path: `${k}/documents/${d}/log` },
      { method: 'GET', path: `${k}/documents/${d}/content` },
      { method: 'GET', path: `${k}/documents/${d}/chunks` },
      { method: 'GET', path: `${k}/documents/${d}/download` },
      { method: 'POST', path: `${k}/documents/bulk`, body: { action: 'delete', documentIds: [d] } },
      { method: 'POST', path: `${k}/documents/download`, body: { documentIds: [d] } },
      { method: 'POST', path: `${k}/documents/${d}/tags/${victim.tagId}` },
      { method: 'DELETE', path: `${k}/documents/${d}/tags/${victim.tagId}` },
      { method: 'POST', path: `${k}/search`, body: { query: 'quarterly numbers' } },
      { method: 'GET', path: `${k}/tags` },
      { method: 'POST', path: `${k}/tags`, body: { name: 'planted' } },
      { method: 'PUT', path: `${k}/tags/${victim.tagId}`, body: { name: 'renamed' } },
      { method: 'DELETE', path: `${k}/tags/${victim.tagId}` },
      { method: 'GET', path: `${k}/summary-index` },
      { method: 'GET', path: `${k}/summary-index/tree` },
      { method: 'POST', path: `${k}/summary-index/build`, body: {} },
      { method: 'POST', path: `${k}/summary-index/rebuild`, body: {} },
      { method: 'POST', path: `${k}/summary-index/cancel`, body: {} },
      // The victim's document through the attacker's own Agent.
      { method: 'GET', path: `${own}/documents/${d}` },
      { method: 'GET', path: `${own}/documents/${d}/content` },
      { method: 'DELETE', path: `${own}/documents/${d}` },
      { method: 'POST', path: `${llm}/generateText`, body: { messages } },
      { method: 'POST', path: `${llm}/generateObject`, body: { messages, schema: { type: 'object' } } },
      {
        method: 'POST',
        path: `${llm}/generateImage`,
        body: { prompt: 'x', aspectRatio: '1:1', resolution: '1K' },
      },
      { method: 'GET', path: `${llm}/models` },
      { method: 'GET', path: `${llm}/usage` },
      { method: 'GET', path: `${CORE}/agents/${victim.personalId}` },
      { method: 'PUT', path: `${CORE}/agents/${victim.personalId}/prompt`, body: { systemPrompt: 'leak' } },
      { method: 'DELETE', path: `${CORE}/agents/${victim.personalId}` },
      { method: 'POST', path: `${CORE}/llm/${victim.personalId}/generateText`, body: { messages } },
      { method: 'GET', path: `${CORE}/knowledge/${victim.personalId}/documents` },
      { method: 'GET', path: `${CORE}/api-keys/${victim.key.id}` },
      { method: 'PATCH', path: `${CORE}/api-keys/${victim.key.id}`, body: { name: 'taken over' } },
      { method: 'DELETE', path: `${CORE}/api-keys/${victim.key.id}` },
      { method: 'GET', path: `${CORE}/usage?dimension=apiKey&subject=${victim.key.id}` },
      { method: 'POST', path: `${CORE}/cost-control/${victim.key.id}`, body: { tokens: 1, window: 'day' } },
      { method: 'DELETE', path: `${CORE}/cost-control/${victim.key.id}` },
    ];
  };

  it('lets no key reach another tenant: 0 leaks, 0 unauthorised changes, over the whole route matrix', async () => {
    const victim = await tenant('victim');
    const before = await snapshot(victim);
    // Attackers: a key granted one Agent of its own (in a Space an admin made), and the admin key (which must not
    // reach another user's personal Agent; it may reach the rest, so only those routes count for it).
    const space = await admin().post<{ id: string }>(`${CORE}/spaces`, {
      name: uniqueName('Attacker space'),
    });
    const own = await admin().post<{ id: string }>(`${CORE}/agents`, { spaceId: space.body.id, name: 'own' });
    // A key acts as its user: Mallory is a member of the Space of the one Agent her key lists.
    const mallory = `mallory-${Date.now()}@example.com`;
    expect(
      (
        await admin().post(`${CORE}/spaces/${space.body.id}/members`, {
          userId: await registeredPerson(api.url, mallory),
          role: 'member',
        })
      ).status,
    ).toBe(201);
    const granted = await issueKey({ owner: { email: mallory }, agents: [own.body.id] });
    const routes = routesAgainst(victim, own.body.id);
    const attackers = [
      { label: 'key granted one Agent', key: granted.key, routes },
      {
        label: 'admin key',
        key: ADMIN_KEY,
        routes: routes.filter((route) => route.path.includes(victim.personalId)),
      },
    ];
    const failures: string[] = [];
    let calls = 0;
    for (const attacker of attackers)
      for (const route of attacker.routes) {
        const reply = await raw(attacker.key, route);
        calls++;
        if (reply.status < 400 || reply.status >= 500 || reply.text.includes(SECRET))
          failures.push(
            `${attacker.label}: ${route.method} ${route.path} → ${reply.status} ${reply.text.slice(0, 160)}`,
          );
      }
    // Lists: the victim's ids appear in none of the attacker's.
    for (const path of [`${CORE}/spaces?limit=200`, `${CORE}/agents?limit=200`]) {
      const listed = await raw(granted.key, { method: 'GET', path });
      calls++;
      for (const id of [victim.spaceId, victim.agentId, victim.personalId])
        if (listed.text.includes(id) || listed.text.includes(SECRET)) failures.push(`${path} lists ${id}`);
    }
    const adminAgents = await raw(ADMIN_KEY, { method: 'GET', path: `${CORE}/agents?limit=200` });
    if (adminAgents.text.includes(victim.personalId))
      failures.push("admin's agent list shows a personal Agent");
    process.stdout.write(`tenant isolation matrix: ${calls} calls, ${failures.length} leaks or changes\n`);
    expect(failures).toEqual([]);
    expect(await snapshot(victim)).toBe(before);
  });

  it('shows a Space to its creator and its members (a key granted an Agent in it only as its member user), and lets only its creator change it', async () => {
    const owner = await tenant('owner');
    // The grant alone is refused: its user has no role in the Space yet.
    const readerEmail = `reader-${Date.now()}@example.com`;
    const readerId = await registeredPerson(api.url, readerEmail);
    const refused = await admin().post<{ error: { code: string } }>(`${CORE}/api-keys`, {
      name: uniqueName('key'),
      owner: { email: readerEmail },
      agents: [owner.agentId],
    });
    expect([refused.status, refused.body.error.code]).toEqual([400, 'grant_unusable']);
    expect(
      (
        await client(api.url, owner.key.key).post(`${CORE}/spaces/${owner.spaceId}/members`, {
          userId: readerId,
          role: 'member',
        })
      ).status,
    ).toBe(201);
    const reader = await issueKey({ owner: { email: readerEmail }, agents: [owner.agentId] });
    const asReader = client(api.url, reader.key);
    expect((await asReader.get(`${CORE}/spaces/${owner.spaceId}`)).status).toBe(200);
    const listed = await asReader.get<{ data: { id: string; isPersonal: boolean }[] }>(
      `${CORE}/spaces?limit=200`,
    );
    // Besides its user's own private personal Space.
    expect(listed.body.data.filter((space) => !space.isPersonal).map((space) => space.id)).toEqual([
      owner.spaceId,
    ]);
    const patch = await asReader.patch(`${CORE}/spaces/${owner.spaceId}`, { name: 'mine now' });
    expect([patch.status, (patch.body as { error: { code: string } }).error.code]).toEqual([
      403,
      'space_change_denied',
    ]);
    expect((await asReader.delete(`${CORE}/spaces/${owner.spaceId}`)).status).toBe(403);
    const asOwner = client(api.url, owner.key.key);
    expect(
      (await asOwner.patch(`${CORE}/spaces/${owner.spaceId}`, { description: 'still mine' })).status,
    ).toBe(200);
    expect((await admin().patch(`${CORE}/spaces/${owner.spaceId}`, { description: 'admin' })).status).toBe(
      200,
    );
  });

  it('moves an Agent only into a Space the caller may change', async () => {
    const victim = await tenant('target');
    const mover = await tenant('mover');
    // A key granted every Agent reaches only the Spaces its user has a role in: another's is unknown (400).
    const unseen = await client(api.url, mover.key.key).put<{ error: { code: string } }>(
      `${CORE}/agents/${mover.agentId}`,
      { spaceId: victim.spaceId },
    );
    expect([unseen.status, unseen.body.error.code]).toEqual([400, 'unknown_space']);
    // A member of the Space sees it but may not put Agents into it (that needs editor): 403.
    const joined = await client(api.url, victim.key.key).post(`${CORE}/spaces/${victim.spaceId}/members`, {
      userId: mover.key.ownerUserId,
      role: 'member',
    });
    expect(joined.status).toBe(201);
    const moved = await client(api.url, mover.key.key).put<{ error: { code: string } }>(
      `${CORE}/agents/${mover.agentId}`,
      { spaceId: victim.spaceId },
    );
    expect([moved.status, moved.body.error.code]).toEqual([403, 'space_change_denied']);
    // A key granted the Agent but not managing it (it may not change the Agent's Space) moves it nowhere: 403.
    const narrowEmail = `narrow-${Date.now()}@example.com`;
    expect(
      (
        await client(api.url, mover.key.key).post(`${CORE}/spaces/${mover.spaceId}/members`, {
          userId: await registeredPerson(api.url, narrowEmail),
          role: 'member',
        })
      ).status,
    ).toBe(201);
    const narrow = await issueKey({ owner: { email: narrowEmail }, agents: [mover.agentId] });
    const unmanaged = await client(api.url, narrow.key).put<{ error: { code: string } }>(
      `${CORE}/agents/${mover.agentId}`,
      { spaceId: victim.spaceId },
    );
    expect([unmanaged.status, unmanaged.body.error.code]).toEqual([403, 'space_change_denied']);
    // A Space the mover cannot see (another's, holding no Agent) is told nothing about: 400 unknown_space, as for an
    // id that never existed.
    const empty = await client(api.url, victim.key.key).post<{ id: string }>(`${CORE}/spaces`, {
      name: uniqueName('Empty'),
    });
    const hidden = await client(api.url, mover.key.key).put<{ error: { code: string; param: string } }>(
      `${CORE}/agents/${mover.agentId}`,
      { spaceId: empty.body.id },
    );
    expect([hidden.status, hidden.body.error.code, hidden.body.error.param]).toEqual([
      400,
      'unknown_space',
      'spaceId',
    ]);
    expect((await admin().get<{ spaceId: string }>(`${CORE}/agents/${mover.agentId}`)).body.spaceId).toBe(
      mover.spaceId,
    );
    const second = await client(api.url, mover.key.key).post<{ id: string }>(`${CORE}/spaces`, {
      name: uniqueName('Second'),
    });
    const ok = await client(api.url, mover.key.key).put(`${CORE}/agents/${mover.agentId}`, {
      spaceId: second.body.id,
    });
    expect(ok.status).toBe(200);
  });

  it("keeps a personal Agent its user's: undeletable (409), invisible to every other key, admins included", async () => {
    const user = await tenant('personal');
    const asUser = client(api.url, user.key.key);
    const deleted = await asUser.delete<{ error: { code: string } }>(`${CORE}/agents/${user.personalId}`);
    expect([deleted.status, deleted.body.error.code]).toEqual([409, 'personal_agent_undeletable']);
    expect((await asUser.get(`${CORE}/agents/${user.personalId}`)).status).toBe(200);
    expect((await admin().get(`${CORE}/agents/${user.personalId}`)).status).toBe(403);
    expect(
      (
        await admin().post(`${CORE}/llm/${user.personalId}/generateText`, {
          messages: [{ role: 'user', content: 'hi' }],
        })
      ).status,
    ).toBe(403);
  });

  it('accepts only a configured chat model for an Agent (400 naming model)', async () => {
    const space = await admin().post<{ id: string }>(`${CORE}/spaces`, { name: uniqueName('Models') });
    const unknown = await admin().post<{ error: { code: string; param: string } }>(`${CORE}/agents`, {
      spaceId: space.body.id,
      name: 'bad model',
      model: 'no-such-model',
    });
    expect([unknown.status, unknown.body.error.code, unknown.body.error.param]).toEqual([
      400,
      'invalid_model',
      'model',
    ]);
    const agent = await admin().post<{ id: string }>(`${CORE}/agents`, {
      spaceId: space.body.id,
      name: 'ok',
    });
    const embedding = await admin().put<{ error: { code: string; message: string } }>(
      `${CORE}/agents/${agent.body.id}`,
      {
        model: 'offline-embed',
      },
    );
    expect([embedding.status, embedding.body.error.code]).toEqual([400, 'invalid_model']);
    expect(embedding.body.error.message).toContain('an embedding model');
  });
});
