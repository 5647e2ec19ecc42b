// An MCP App's resources synced into an Agent's Knowledge over real HTTP: an admin imports a resource as a document
// (provider `app:<appId>`, its sourceUri), an answer cites it; the resource changes and a sync ingests it again as a
// new version; it disappears and a sync removes the document. The MCP server is a small one built with the MCP SDK's
// own server in this test (the network edge: a server whose resources the test can change), on loopback.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { waitUntil } from '#testing/fixtures';
import { client, CORE, startTestApi, uniqueName, type TestApi } from './support/api.js';
import { agentInNewSpace, sendTurn } from './support/scenario.js';

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
    api = await startTestApi();
    admin = client(api.url);
  }, 60_000);
  afterAll(async () => {
    await api.close();
    await new Promise((resolve) => notes.close(resolve));
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
});
