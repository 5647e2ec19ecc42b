// The core API end to end over real HTTP on the embedded stack: what a user of Spaces, Agents and API keys sees.
import { waitUntil } from '#testing/fixtures';
import { ADMIN_KEY, client, CORE, startTestApi, uniqueName, type TestApi } from './support/api.js';

type Json = Record<string, unknown>;
interface Page {
  data: Json[];
  nextCursor: string | null;
}

describe('core API (e2e)', () => {
  let api: TestApi;
  let admin: ReturnType<typeof client>;

  beforeAll(async () => {
    api = await startTestApi();
    admin = client(api.url);
  });
  afterAll(async () => {
    await api.close();
  });

  const createSpace = async (body: Json = {}) => {
    const reply = await admin.post(`${CORE}/spaces`, { name: uniqueName('Space'), ...body });
    expect(reply.status).toBe(201);
    return reply.body;
  };
  const createAgent = async (spaceId: string, body: Json = {}) => {
    const reply = await admin.post(`${CORE}/agents`, { spaceId, name: 'Helper', ...body });
    expect(reply.status).toBe(201);
    return reply.body;
  };
  const issueKey = async (body: Json) => {
    const reply = await admin.post<Json & { key: string; id: string }>(`${CORE}/api-keys`, {
      name: 'scoped',
      ...body,
    });
    expect(reply.status).toBe(201);
    return reply.body;
  };

  describe('Spaces', () => {
    it('creates, reads straight after (read-your-writes), updates and deletes a Space', async () => {
      const created = await createSpace({
        name: 'Research & Development',
        description: 'R&D',
        color: '#1e88e5',
      });
      expect(created).toMatchObject({
        name: 'Research & Development',
        slug: 'research-development',
        description: 'R&D',
        color: '#1e88e5',
      });
      expect(created.id).toMatch(/^spc_/);
      expect(Date.parse(created.createdAt as string)).not.toBeNaN();

      const fetched = await admin.get(`${CORE}/spaces/${created.id}`);
      expect(fetched.body).toEqual(created);

      const patched = await admin.patch(`${CORE}/spaces/${created.id}`, { name: 'R&D Lab', slug: 'rnd' });
      expect(patched.status).toBe(200);
      expect(patched.body).toMatchObject({ name: 'R&D Lab', slug: 'rnd', description: 'R&D' });
      expect(patched.body.updatedAt).not.toBe(created.updatedAt);

      expect((await admin.delete(`${CORE}/spaces/${created.id}`)).status).toBe(204);
      const gone = await admin.get(`${CORE}/spaces/${created.id}`);
      expect(gone.status).toBe(404);
      expect(gone.body).toEqual({
        error: { type: 'not_found_error', code: 'space_not_found', message: expect.any(String) },
      });
      expect((await admin.patch(`${CORE}/spaces/${created.id}`, { name: 'x' })).status).toBe(404);
      expect((await admin.delete(`${CORE}/spaces/${created.id}`)).status).toBe(204);
    });

    it('keeps names unique (case-insensitive) and frees a name when its Space is renamed or deleted', async () => {
      const name = uniqueName('Unique');
      const first = await createSpace({ name });
      const clash = await admin.post(`${CORE}/spaces`, { name: name.toUpperCase() });
      expect(clash.status).toBe(409);
      expect(clash.body).toMatchObject({
        error: { code: 'space_name_taken', param: 'name', type: 'conflict_error' },
      });

      await admin.patch(`${CORE}/spaces/${first.id}`, { name: `${name} renamed` });
      const reused = await admin.post(`${CORE}/spaces`, { name, slug: `${first.slug}-2` });
      expect(reused.status).toBe(201);
      await admin.delete(`${CORE}/spaces/${reused.body.id}`);
      expect((await admin.post(`${CORE}/spaces`, { name, slug: `${first.slug}-3` })).status).toBe(201);
    });

    it('refuses bad input with a 400 naming the field, and writes nothing', async () => {
      const before = ((await admin.get<Page>(`${CORE}/spaces?limit=200`)).body as Page).data.length;
      const cases: [unknown, string][] = [
        [{}, 'name'],
        [{ name: '' }, 'name'],
        [{ name: 'x', slug: 'Not A Slug' }, 'slug'],
        [{ name: 'x', slug: '-edge' }, 'slug'],
        [{ name: 'x', color: 'red' }, 'color'],
        [{ name: 'x', surprise: true }, 'surprise'],
        [{ name: 42 }, 'name'],
      ];
      for (const [body, param] of cases) {
        const reply = await admin.post(`${CORE}/spaces`, body);
        expect(reply.status).toBe(400);
        expect(reply.body).toMatchObject({ error: { type: 'invalid_request_error', param } });
      }
      expect((await admin.post(`${CORE}/spaces`, '{not json')).body).toMatchObject({
        error: { code: 'invalid_json' },
      });
      for (const raw of ['[]', '"text"', 'null', '']) {
        const reply = await admin.post(`${CORE}/spaces`, raw);
        expect(reply.status).toBe(400);
        expect((reply.body as { error: Json }).error.code).toMatch(/^invalid_(body|json)$/);
      }
      expect((await admin.patch(`${CORE}/spaces/whatever`, {})).status).toBe(400);
      expect(((await admin.get<Page>(`${CORE}/spaces?limit=200`)).body as Page).data.length).toBe(before);
    });

    it('pages with limit and cursor, oldest first, without repeats', async () => {
      for (let i = 0; i < 5; i++) await createSpace();
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const reply: { status: number; body: Page } = await admin.get<Page>(
          `${CORE}/spaces?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        );
        expect(reply.status).toBe(200);
        expect(reply.body.data.length).toBeLessThanOrEqual(2);
        seen.push(...reply.body.data.map((space) => space.id as string));
        cursor = reply.body.nextCursor;
      } while (cursor);
      expect(new Set(seen).size).toBe(seen.length);
      expect(seen.length).toBeGreaterThanOrEqual(5);
      expect((await admin.get(`${CORE}/spaces?limit=0`)).status).toBe(400);
      expect((await admin.get(`${CORE}/spaces?limit=abc`)).body).toMatchObject({ error: { param: 'limit' } });
      expect((await admin.get(`${CORE}/spaces?cursor=garbage`)).body).toMatchObject({
        error: { code: 'invalid_cursor', param: 'cursor' },
      });
    });
  });

  describe('Agents', () => {
    it('creates with defaults, changes the prompt and settings, lists, gets and deletes', async () => {
      const space = await createSpace();
      const agent = await createAgent(space.id as string, {
        allowedUrls: 'https://a.example, https://*.b.example',
      });
      expect(agent).toMatchObject({
        spaceId: space.id,
        name: 'Helper',
        model: 'offline-chat',
        systemPrompt: '',
        isPersonal: false,
        memoryEnabled: true,
        sharedMemoryEnabled: false,
        isPublic: false,
        allowedUrls: ['https://a.example', 'https://*.b.example'],
        embedSessionMinutes: 0,
        temperature: null,
        topP: null,
        topK: null,
        knowledgeEnabled: true,
        includeAiSummary: false,
        codeExecutionEnabled: false,
      });

      const prompt = await admin.put(`${CORE}/agents/${agent.id}/prompt`, {
        systemPrompt: 'Answer in French.',
      });
      expect(prompt.body).toMatchObject({ systemPrompt: 'Answer in French.' });

      const changed = await admin.put(`${CORE}/agents/${agent.id}`, {
        temperature: 0.3,
        topK: 40,
        isPublic: true,
        embedWindowTitle: 'Ask us',
      });
      expect(changed.body).toMatchObject({
        temperature: 0.3,
        topK: 40,
        isPublic: true,
        memoryEnabled: false,
        embedWindowTitle: 'Ask us',
      });
      const disabled = await admin.put(`${CORE}/agents/${agent.id}`, { topK: null });
      expect(disabled.body).toMatchObject({ topK: null, temperature: 0.3 });

      const refused = await admin.put(`${CORE}/agents/${agent.id}`, { memoryEnabled: true });
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({
        error: { code: 'memory_unavailable_for_public_agent', param: 'memoryEnabled' },
      });

      const listed = await admin.get<Page>(`${CORE}/agents?spaceId=${space.id}`);
      expect(listed.body.data.map((a) => a.id)).toEqual([agent.id]);

      expect((await admin.delete(`${CORE}/agents/${agent.id}`)).status).toBe(204);
      expect((await admin.get(`${CORE}/agents/${agent.id}`)).status).toBe(404);
      expect((await admin.get<Page>(`${CORE}/agents?spaceId=${space.id}`)).body.data).toEqual([]);
    });

    it('refuses invalid settings and unknown Spaces', async () => {
      const space = await createSpace();
      const bad: [Json, string][] = [
        [{ spaceId: space.id, name: 'x', temperature: 3 }, 'temperature'],
        [{ spaceId: space.id, name: 'x', topK: 0.5 }, 'topK'],
        [
          { spaceId: space.id, name: 'x', allowedUrls: "https://ok.example, evil'; script-src *" },
          'allowedUrls.1',
        ],
        [{ spaceId: space.id, name: 'x', isPublic: true, memoryEnabled: true }, 'memoryEnabled'],
        [{ spaceId: 'spc_missing', name: 'x' }, 'spaceId'],
        [{ name: 'x' }, 'spaceId'],
      ];
      for (const [body, param] of bad) {
        const reply = await admin.post(`${CORE}/agents`, body);
        expect(reply.status).toBe(400);
        expect(reply.body).toMatchObject({ error: { param } });
      }
    });

    it('deleting a Space removes its Agents through their own commands', async () => {
      const space = await createSpace();
      const a1 = await createAgent(space.id as string);
      const a2 = await createAgent(space.id as string, { name: 'Second' });
      const other = await createSpace();
      const kept = await createAgent(other.id as string);
      expect((await admin.delete(`${CORE}/spaces/${space.id}`)).status).toBe(204);
      await waitUntil(async () => (await admin.get(`${CORE}/agents/${a1.id}`)).status === 404);
      await waitUntil(async () => (await admin.get(`${CORE}/agents/${a2.id}`)).status === 404);
      expect((await admin.get(`${CORE}/agents/${kept.id}`)).status).toBe(200);
    });
  });

  describe('API keys and access', () => {
    it('answers 401 for a missing, unknown or revoked key, and accepts only x-api-key on the core API', async () => {
      const anonymous = client(api.url, null);
      expect((await anonymous.get(`${CORE}/spaces`)).body).toMatchObject({
        error: { type: 'authentication_error', code: 'missing_api_key' },
      });
      expect((await client(api.url, 'ap_nope').get(`${CORE}/spaces`)).body).toMatchObject({
        error: { code: 'invalid_api_key' },
      });
      expect((await anonymous.get(`${CORE}/spaces`, { authorization: `Bearer ${ADMIN_KEY}` })).status).toBe(
        401,
      );

      const issued = await issueKey({ name: 'short-lived' });
      expect(issued.key).toMatch(/^ap_/);
      expect((await client(api.url, issued.key).get(`${CORE}/spaces`)).status).toBe(200);
      const revoked = await admin.delete(`${CORE}/api-keys/${issued.id}`);
      expect(revoked.body).toMatchObject({ revoked: true });
      expect((await client(api.url, issued.key).get(`${CORE}/spaces`)).body).toMatchObject({
        error: { code: 'api_key_revoked' },
      });
    });

    it('shows a key once: lists carry a prefix, never the key or its hash', async () => {
      const issued = await issueKey({ name: 'listing' });
      const listed = await admin.get<Page>(`${CORE}/api-keys?limit=200`);
      const row = listed.body.data.find((key) => key.id === issued.id)!;
      expect(row).toMatchObject({
        name: 'listing',
        keyPrefix: issued.key.slice(0, 9),
        revoked: false,
        agents: 'all',
      });
      expect(JSON.stringify(listed.body)).not.toContain(issued.key);
      expect(row).not.toHaveProperty('keyHash');
      expect(row).not.toHaveProperty('key');
    });

    it('limits a key to its granted Agents: 403 on each agent route, absent from lists', async () => {
      const space = await createSpace();
      const granted = await createAgent(space.id as string, { name: 'Granted' });
      const hidden = await createAgent(space.id as string, { name: 'Hidden' });
      const scoped = client(api.url, (await issueKey({ agents: [granted.id] })).key);

      expect((await scoped.get(`${CORE}/agents/${granted.id}`)).status).toBe(200);
      const ids = (await scoped.get<Page>(`${CORE}/agents?limit=200`)).body.data.map((a) => a.id);
      expect(ids).toContain(granted.id);
      expect(ids).not.toContain(hidden.id);
      for (const reply of [
        await scoped.get(`${CORE}/agents/${hidden.id}`),
        await scoped.put(`${CORE}/agents/${hidden.id}`, { name: 'x' }),
        await scoped.put(`${CORE}/agents/${hidden.id}/prompt`, { systemPrompt: 'x' }),
        await scoped.delete(`${CORE}/agents/${hidden.id}`),
      ]) {
        expect(reply.status).toBe(403);
        expect(reply.body).toMatchObject({
          error: { type: 'permission_error', code: 'agent_access_denied' },
        });
      }
      expect((await admin.get(`${CORE}/agents/${hidden.id}`)).body).toMatchObject({ name: 'Hidden' });
      expect((await scoped.post(`${CORE}/api-keys`, { name: 'escalate' })).status).toBe(403);
      expect((await scoped.post(`${CORE}/agents`, { spaceId: space.id, name: 'x' })).status).toBe(403);
    });

    it("registers a new key owner as a user with a personal Agent that other users' keys cannot see", async () => {
      const email = `${Math.random().toString(36).slice(2)}@example.com`;
      const issued = await issueKey({ owner: { email, name: 'Ada' } });
      const ada = client(api.url, issued.key);
      expect((await ada.get(`${CORE}/users/me`)).body).toMatchObject({ email, name: 'Ada', role: 'member' });
      await waitUntil(async () =>
        (await ada.get<Page>(`${CORE}/agents?limit=200`)).body.data.some((a) => a.isPersonal),
      );
      const personal = (await ada.get<Page>(`${CORE}/agents?limit=200`)).body.data.find((a) => a.isPersonal)!;
      // In Ada's private personal Space.
      expect(personal).toMatchObject({
        spaceId: expect.stringMatching(/^spc_personal_/),
        name: "Ada's assistant",
        ownerUserId: issued.ownerUserId,
      });

      const bob = client(api.url, (await issueKey({ owner: { email: `b-${email}` } })).key);
      expect((await bob.get(`${CORE}/agents/${personal.id}`)).status).toBe(403);
      expect((await bob.get<Page>(`${CORE}/agents?limit=200`)).body.data.map((a) => a.id)).not.toContain(
        personal.id,
      );
    });
  });

  describe('Idempotency-Key', () => {
    it('returns the first result for a retried POST and creates nothing more', async () => {
      const key = `idem-${Math.random()}`;
      const body = { name: uniqueName('Idempotent') };
      const first = await admin.post(`${CORE}/spaces`, body, { 'idempotency-key': key });
      const second = await admin.post(`${CORE}/spaces`, body, { 'idempotency-key': key });
      expect(first.status).toBe(201);
      expect(second.status).toBe(201);
      expect(second.body).toEqual(first.body);
      expect(second.headers.get('idempotent-replayed')).toBe('true');
      const all = (await admin.get<Page>(`${CORE}/spaces?limit=200`)).body.data.filter(
        (s) => s.name === body.name,
      );
      expect(all).toHaveLength(1);

      const reused = await admin.post(`${CORE}/spaces`, { name: 'other' }, { 'idempotency-key': key });
      expect(reused.status).toBe(422);
      expect(reused.body).toMatchObject({ error: { code: 'idempotency_key_reused' } });
    });

    it('does not replay an issued secret', async () => {
      const key = `idem-${Math.random()}`;
      const first = await admin.post(`${CORE}/api-keys`, { name: 'once' }, { 'idempotency-key': key });
      const again = await admin.post(`${CORE}/api-keys`, { name: 'once' }, { 'idempotency-key': key });
      expect(first.body.key).toMatch(/^ap_/);
      expect(again.body).toMatchObject({ id: first.body.id, key: null });
    });
  });

  describe('operations', () => {
    it('serves the OpenAPI document, the docs page, health with projection lag, and metrics', async () => {
      const anonymous = client(api.url, null);
      const openapi = await anonymous.get<{
        openapi: string;
        paths: Record<string, Record<string, unknown>>;
      }>(`${CORE}/openapi.json`);
      expect(openapi.body.openapi).toBe('3.1.0');
      expect(Object.keys(openapi.body.paths)).toEqual(
        expect.arrayContaining([
          `${CORE}/spaces`,
          `${CORE}/spaces/{spaceId}`,
          `${CORE}/agents`,
          `${CORE}/agents/{agentId}`,
          `${CORE}/agents/{agentId}/prompt`,
          `${CORE}/api-keys`,
        ]),
      );
      expect(Object.keys(openapi.body.paths[`${CORE}/spaces/{spaceId}`]!)).toEqual(
        expect.arrayContaining(['patch', 'delete']),
      );

      // Every body is read: an unread one holds its connection open past the api's close (the support's close fails).
      const docs = await fetch(`${api.url}${CORE}/docs`);
      expect(docs.headers.get('content-type')).toContain('text/html');
      expect(await docs.text()).toContain('swagger-ui-bundle.js');
      const bundle = await fetch(`${api.url}${CORE}/docs/swagger-ui-bundle.js`);
      expect(bundle.status).toBe(200);
      expect((await bundle.arrayBuffer()).byteLength).toBeGreaterThan(100_000);

      const health = await anonymous.get<{ status: string; ready: boolean; projections: Json[] }>('/health');
      expect(health.status).toBe(200);
      expect(health.body).toMatchObject({ status: 'ok', ready: true });
      expect(health.body.projections.map((p) => p.name)).toEqual(
        expect.arrayContaining(['spaces', 'agents', 'api-keys']),
      );
      expect(health.body.projections[0]).toEqual(
        expect.objectContaining({ lagEvents: expect.any(Number), lagSeconds: expect.any(Number) }),
      );

      const metrics = await fetch(`${api.url}/metrics`);
      const text = await metrics.text();
      expect(text).toContain('projection_lag_events{projection="spaces"}');
      expect(text).toContain('http_request_duration_seconds_bucket');
    });

    it('never writes an API key to the logs', async () => {
      const issued = await issueKey({ name: 'secret-check' });
      await client(api.url, issued.key).get(`${CORE}/spaces`);
      await client(api.url, `${issued.key}x`).get(`${CORE}/spaces`);
      const logs = api.logs();
      expect(logs).toContain('"route":"/api/v1/core/spaces"');
      expect(logs).not.toContain(issued.key);
      expect(logs).not.toContain(ADMIN_KEY);
    });
  });
});
