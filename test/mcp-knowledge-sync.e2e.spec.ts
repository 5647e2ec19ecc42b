// An App's documents synced into Knowledge over real HTTP: an admin imports an MCP App's resource, or a text a URL
// App's `/meta` declares, as a document (provider `app:<appId>`, its sourceUri) of an Agent's, a Space's or the Global
// Knowledge, and an answer cites it; the source changes and a sync ingests it again as a new version; it disappears
// and a sync removes the document. The MCP server is a small one built with the MCP SDK's own server in this test
// (the network edge: a server whose resources the test can change), the URL App a small HTTP server (we own its
// contract), both on loopback.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { waitUntil } from '#testing/fixtures';
import { client, CORE, startTestApi, uniqueName, type TestApi } from './support/api.js';
import { agentInNewSpace, newAgent, sendTurn } from './support/scenario.js';

interface Answer {
  message: { content: string; citations: { documentId: string; documentName: string }[] };
}
interface DocumentBody {
  id: string;
  status: string;
  provider: string;
  sourceUri: string | null;
  version?: number;
  contentHash: string;
}

describe("an MCP App's resources synced into Knowledge (e2e)", () => {
  let api: TestApi;
  let admin: ReturnType<typeof client>;
  let notes: Server;
  let url: string;
  let textApp: Server;
  let textAppUrl: string;
  /** The texts the URL App serves at their paths (a missing one answers 404), changed by the tests. */
  const texts = new Map<string, string>([
    ['/docs/canteen.md', '# Canteen\n\nThe canteen serves lunch from 11:30 to 14:00.'],
    ['/docs/badge.txt', 'Lost badges are replaced at the front desk on floor 2.'],
  ]);
  const TEXT_APP_META = {
    id: 'intranet',
    name: 'Intranet',
    tools: [],
    documents: [
      { uri: 'intranet://canteen', name: 'canteen.md', path: '/docs/canteen.md' },
      { uri: 'intranet://badge', name: 'badge.txt', path: '/docs/badge.txt' },
      { uri: 'intranet://binary', name: 'logo.png', path: '/docs/logo.png' },
    ],
  };
  /** The resources the test server offers, changed by the tests. */
  const resources = new Map<string, string>([
    ['notes://handbook', '# Handbook\n\nEvery employee has 30 vacation days a year.'],
    ['notes://parking', '# Parking\n\nThe parking garage opens at 6 am.'],
  ]);

  const serverFor = () => {
    const server = new McpServer({ name: 'notes', version: '1.0.0' });
    server.registerResource(
      'note',
      new ResourceTemplate('notes://{name}', {
        list: () => ({
          resources: [...resources.keys()].map((uri) => ({
            uri,
            name: uri.slice(8),
            mimeType: 'text/markdown',
          })),
        }),
      }),
      { mimeType: 'text/markdown' },
      (uri) => {
        const text = resources.get(uri.href);
        if (text === undefined) throw Object.assign(new Error(`no resource ${uri.href}`), { code: -32002 });
        return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text }] };
      },
    );
    return server;
  };

  beforeAll(async () => {
    notes = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        const server = serverFor();
        const transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: undefined,
          enableJsonResponse: true,
        });
        response.on('close', () => void server.close());
        void server
          .connect(transport)
          .then(() => transport.handleRequest(request, response, body ? JSON.parse(body) : undefined));
      });
    });
    await new Promise<void>((resolve) => notes.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(notes.address() as AddressInfo).port}/mcp`;
    textApp = createServer((request, response) => {
      if (request.url === '/meta')
        return void response
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify(TEXT_APP_META));
      if (request.url === '/docs/logo.png')
        return void response.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.from([0x89, 0x50]));
      const text = texts.get(request.url ?? '');
      if (text === undefined) return void response.writeHead(404).end();
      const type = request.url!.endsWith('.md') ? 'text/markdown' : 'text/plain; charset=utf-8';
      response.writeHead(200, { 'content-type': type }).end(text);
    });
    await new Promise<void>((resolve) => textApp.listen(0, '127.0.0.1', resolve));
    textAppUrl = `http://127.0.0.1:${(textApp.address() as AddressInfo).port}`;
    api = await startTestApi();
    admin = client(api.url);
  }, 60_000);
  afterAll(async () => {
    await api.close();
    await new Promise((resolve) => notes.close(resolve));
    await new Promise((resolve) => textApp.close(resolve));
    expect(api.logs()).not.toContain('unhandled error');
  });

  const documentOf = (agentId: string, documentId: string) =>
    admin.get<DocumentBody>(`${CORE}/knowledge/${agentId}/documents/${documentId}`);
  const ready = (agentId: string, documentId: string) =>
    waitUntil(async () => (await documentOf(agentId, documentId)).body.status === 'Ready', 30_000);

  it('imports a resource as a synced document that answers cite, ingests it again when it changes, removes it when it goes', async () => {
    const { agentId } = await agentInNewSpace(admin, { name: uniqueName('HR') });
    const app = await admin.post<{ id: string }>(`${CORE}/apps`, {
      name: 'Notes',
      source: { type: 'mcp', url },
      enablement: { kind: 'agents', agentIds: [agentId] },
    });
    expect(app.status).toBe(201);
    const appId = app.body.id;

    const imported = await admin.post<{ documentId: string }>(`${CORE}/apps/${appId}/resources/import`, {
      agentId,
      uri: 'notes://handbook',
      name: 'handbook.md',
    });
    expect(imported.status).toBe(201);
    const { documentId } = imported.body;
    await ready(agentId, documentId);
    const first = (await documentOf(agentId, documentId)).body;
    expect(first).toMatchObject({ provider: `app:${appId}`, sourceUri: 'notes://handbook' });
    const asked = await sendTurn(admin, agentId, {
      message: 'How many vacation days does an employee have?',
    });
    expect(asked.body.message.content).toContain('30 vacation days');
    expect((asked.body as unknown as Answer).message.citations).toEqual([
      expect.objectContaining({ documentId, documentName: 'handbook.md' }),
    ]);

    // Unchanged: nothing recorded. Changed: a new version, ingested again.
    const same = await admin.post<{ data: { outcome: string }[] }>(`${CORE}/apps/${appId}/sync`, {});
    expect(same.status).toBe(200);
    expect(same.body.data).toEqual([{ documentId, uri: 'notes://handbook', outcome: 'unchanged' }]);
    resources.set('notes://handbook', '# Handbook\n\nEvery employee has 32 vacation days a year.');
    const changed = await admin.post<{ data: { outcome: string }[] }>(`${CORE}/apps/${appId}/sync`, {});
    expect(changed.body.data).toEqual([{ documentId, uri: 'notes://handbook', outcome: 'updated' }]);
    await waitUntil(async () => {
      const now = (await documentOf(agentId, documentId)).body;
      return now.status === 'Ready' && now.contentHash !== first.contentHash;
    }, 30_000);
    const again = await sendTurn(admin, agentId, {
      message: 'How many vacation days does an employee have?',
    });
    expect(again.body.message.content).toContain('32 vacation days');

    // Gone from the server: gone from the Knowledge.
    resources.delete('notes://handbook');
    const removed = await admin.post<{ data: { outcome: string }[] }>(`${CORE}/apps/${appId}/sync`, {});
    expect(removed.body.data).toEqual([{ documentId, uri: 'notes://handbook', outcome: 'removed' }]);
    expect((await documentOf(agentId, documentId)).status).toBe(404);
  });

  it('refuses an unknown resource, an Agent the App is not enabled for and a non-admin', async () => {
    const { agentId } = await agentInNewSpace(admin);
    const { agentId: other } = await agentInNewSpace(admin);
    const app = await admin.post<{ id: string }>(`${CORE}/apps`, {
      name: 'Notes again',
      source: { type: 'mcp', url },
      enablement: { kind: 'agents', agentIds: [agentId] },
    });
    const path = `${CORE}/apps/${app.body.id}/resources/import`;
    const unknown = await admin.post(path, { agentId, uri: 'notes://nothing' });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ error: { code: 'resource_not_found' } });
    const notEnabled = await admin.post(path, { agentId: other, uri: 'notes://parking' });
    expect(notEnabled.status).toBe(400);
    expect(notEnabled.body).toMatchObject({ error: { code: 'app_not_enabled' } });
    const member = await admin.post<{ key: string }>(`${CORE}/api-keys`, {
      name: uniqueName('member'),
      owner: { email: `sync-${Date.now()}@example.com` },
      agents: [],
    });
    const refused = await client(api.url, member.body.key).post(path, { agentId, uri: 'notes://parking' });
    expect(refused.status).toBe(403);
    const listed = await admin.get<{ data: unknown[] }>(`${CORE}/knowledge/${agentId}/documents`);
    expect(listed.body.data).toEqual([]);
  });
  const syncOf = (appId: string) =>
    admin.post<{ data: { documentId: string; outcome: string }[] }>(`${CORE}/apps/${appId}/sync`, {});

  it("imports a URL App's declared texts, cites them, and syncs their changes and their removal", async () => {
    const { agentId } = await agentInNewSpace(admin, { name: uniqueName('Facilities') });
    const app = await admin.post<{ id: string; meta: { documents: unknown[] } }>(`${CORE}/apps`, {
      name: 'Intranet',
      source: { type: 'url', url: textAppUrl },
      enablement: { kind: 'agents', agentIds: [agentId] },
    });
    expect(app.status).toBe(201);
    expect(app.body.meta.documents).toEqual(TEXT_APP_META.documents);
    const appId = app.body.id;
    const path = `${CORE}/apps/${appId}/resources/import`;

    const canteen = await admin.post<{ documentId: string }>(path, { agentId, uri: 'intranet://canteen' });
    expect(canteen.status).toBe(201);
    const badge = await admin.post<{ documentId: string }>(path, { agentId, uri: 'intranet://badge' });
    expect(badge.status).toBe(201);
    // Not declared, and declared but not text: nothing added.
    const undeclared = await admin.post(path, { agentId, uri: 'intranet://nothing' });
    expect(undeclared.status).toBe(404);
    expect(undeclared.body).toMatchObject({ error: { code: 'resource_not_found' } });
    const binary = await admin.post(path, { agentId, uri: 'intranet://binary' });
    expect(binary.status).toBe(422);
    expect(binary.body).toMatchObject({ error: { code: 'app_unreachable' } });

    await ready(agentId, canteen.body.documentId);
    await ready(agentId, badge.body.documentId);
    expect((await documentOf(agentId, canteen.body.documentId)).body).toMatchObject({
      name: 'canteen.md',
      provider: `app:${appId}`,
      sourceUri: 'intranet://canteen',
    });
    const asked = await sendTurn(admin, agentId, { message: 'When does the canteen serve lunch?' });
    expect(asked.body.message.content).toContain('11:30 to 14:00');
    expect((asked.body as unknown as Answer).message.citations).toEqual([
      expect.objectContaining({ documentId: canteen.body.documentId, documentName: 'canteen.md' }),
    ]);

    const first = (await documentOf(agentId, canteen.body.documentId)).body;
    texts.set('/docs/canteen.md', '# Canteen\n\nThe canteen serves lunch from 12:00 to 14:30.');
    texts.delete('/docs/badge.txt');
    const synced = await syncOf(appId);
    expect(synced.status).toBe(200);
    expect(synced.body.data).toEqual(
      expect.arrayContaining([
        { documentId: canteen.body.documentId, uri: 'intranet://canteen', outcome: 'updated' },
        { documentId: badge.body.documentId, uri: 'intranet://badge', outcome: 'removed' },
      ]),
    );
    expect(synced.body.data).toHaveLength(2);
    expect((await documentOf(agentId, badge.body.documentId)).status).toBe(404);
    await waitUntil(async () => {
      const now = (await documentOf(agentId, canteen.body.documentId)).body;
      return now.status === 'Ready' && now.contentHash !== first.contentHash;
    }, 30_000);
    const again = await sendTurn(admin, agentId, { message: 'When does the canteen serve lunch?' });
    expect(again.body.message.content).toContain('12:00 to 14:30');
  });

  it("imports into a Space's Knowledge, which every Agent of the Space cites, and syncs it", async () => {
    const { agentId, spaceId } = await agentInNewSpace(admin, { name: uniqueName('Legal') });
    const colleague = await newAgent(admin, spaceId, { name: uniqueName('Colleague') });
    const { spaceId: elsewhere } = await agentInNewSpace(admin);
    resources.set('notes://contracts', '# Contracts\n\nEvery contract is signed by two directors.');
    const app = await admin.post<{ id: string }>(`${CORE}/apps`, {
      name: 'Notes for a Space',
      source: { type: 'mcp', url },
      enablement: { kind: 'agents', agentIds: [agentId] },
    });
    const path = `${CORE}/apps/${app.body.id}/resources/import`;
    // A place the App does not reach, none named, two named, a Space that does not exist: refused.
    for (const [body, status, code] of [
      [{ spaceId: elsewhere }, 400, 'app_not_enabled'],
      [{}, 400, 'invalid_field'],
      [{ agentId, spaceId }, 400, 'invalid_field'],
      [{ spaceId: 'spc_nothing' }, 404, 'space_not_found'],
    ] as const) {
      const refused = await admin.post(path, { ...body, uri: 'notes://contracts' });
      expect({
        body,
        status: refused.status,
        code: (refused.body as { error: { code: string } }).error.code,
      }).toEqual({ body, status, code });
    }

    const imported = await admin.post<{ documentId: string }>(path, { spaceId, uri: 'notes://contracts' });
    expect(imported.status).toBe(201);
    const { documentId } = imported.body;
    await ready(colleague, documentId);
    expect((await documentOf(colleague, documentId)).body).toMatchObject({
      scope: 'space',
      provider: `app:${app.body.id}`,
      sourceUri: 'notes://contracts',
    });
    const asked = await sendTurn(admin, colleague, { message: 'Who signs a contract?' });
    expect(asked.body.message.content).toContain('two directors');
    expect((asked.body as unknown as Answer).message.citations).toEqual([
      expect.objectContaining({ documentId }),
    ]);

    resources.delete('notes://contracts');
    const removed = await syncOf(app.body.id);
    expect(removed.body.data).toEqual([{ documentId, uri: 'notes://contracts', outcome: 'removed' }]);
    expect((await documentOf(colleague, documentId)).status).toBe(404);
  });

  it('imports into the Global Knowledge from an App enabled for every Agent only, cited by any Agent', async () => {
    resources.set('notes://security', '# Security\n\nPasswords are rotated every 90 days.');
    const scoped = await admin.post<{ id: string }>(`${CORE}/apps`, {
      name: 'Notes for some',
      source: { type: 'mcp', url },
      enablement: { kind: 'agents', agentIds: [] },
    });
    const refused = await admin.post(`${CORE}/apps/${scoped.body.id}/resources/import`, {
      scope: 'global',
      uri: 'notes://security',
    });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ error: { code: 'app_not_enabled' } });

    const { agentId } = await agentInNewSpace(admin, { name: uniqueName('Anyone') });
    const global = await admin.post<{ id: string }>(`${CORE}/apps`, {
      name: 'Notes for all',
      source: { type: 'mcp', url },
      enablement: { kind: 'global' },
    });
    const imported = await admin.post<{ documentId: string }>(
      `${CORE}/apps/${global.body.id}/resources/import`,
      { scope: 'global', uri: 'notes://security', name: 'security.md' },
    );
    expect(imported.status).toBe(201);
    const { documentId } = imported.body;
    await ready(agentId, documentId);
    expect((await documentOf(agentId, documentId)).body).toMatchObject({ scope: 'global' });
    const asked = await sendTurn(admin, agentId, { message: 'How often are passwords rotated?' });
    expect(asked.body.message.content).toContain('90 days');
    expect((asked.body as unknown as Answer).message.citations).toEqual([
      expect.objectContaining({ documentId, documentName: 'security.md' }),
    ]);

    resources.set('notes://security', '# Security\n\nPasswords are rotated every 60 days.');
    const synced = await syncOf(global.body.id);
    expect(synced.body.data).toEqual([{ documentId, uri: 'notes://security', outcome: 'updated' }]);
    resources.delete('notes://security');
    expect((await syncOf(global.body.id)).body.data).toEqual([
      { documentId, uri: 'notes://security', outcome: 'removed' },
    ]);
  });
});
