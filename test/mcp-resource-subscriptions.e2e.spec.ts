// Synced documents that follow their MCP server's update notifications, over real HTTP: an admin imports a resource
// of an MCP App whose server declares `resources.subscribe`; the platform subscribes to it on one long-lived
// connection, and when the server changes the resource and says so (`notifications/resources/updated`) the document
// is ingested again — no `POST /sync`. A server that loses its sessions (a restart) is connected to again and the App
// synced for what changed meanwhile; the last synced document deleted, or the App, ends the subscription. The server
// is the MCP SDK's own (libs/core/testing/src/mcp-changing.ts) on loopback.
import { waitUntil } from '#testing/fixtures';
import { startChangingResources, type ChangingResources } from '#testing/mcp-changing';
import { ADMIN_KEY, client, CORE, startTestApi, type TestApi } from './support/api.js';
import { agentInNewSpace } from './support/scenario.js';

interface DocumentBody {
  id: string;
  status: string;
  contentHash: string;
  lastModified: string;
}

describe("synced documents follow their MCP server's update notifications (e2e)", () => {
  let api: TestApi;
  let admin: ReturnType<typeof client>;
  let notes: ChangingResources;

  beforeAll(async () => {
    notes = await startChangingResources({
      'notes://handbook': '# Handbook\n\nEvery employee has 30 vacation days a year.',
      'notes://parking': '# Parking\n\nThe parking garage opens at 6 am.',
    });
    api = await startTestApi();
    admin = client(api.url);
  }, 60_000);
  afterAll(async () => {
    await api.close();
    await notes.stop();
    expect(api.logs()).not.toContain('unhandled error');
    expect(api.logs()).not.toContain('the MCP resource watcher could not reconcile');
  });

  const documentOf = async (agentId: string, documentId: string) =>
    (await admin.get<DocumentBody>(`${CORE}/knowledge/${agentId}/documents/${documentId}`)).body;
  const textOf = async (agentId: string, documentId: string) =>
    (
      await fetch(`${api.url}${CORE}/knowledge/${agentId}/documents/${documentId}/content`, {
        headers: { 'x-api-key': ADMIN_KEY },
      })
    ).text();
  /** An Agent, the App of the test server enabled for it, and the resource imported into its Knowledge, Ready. */
  const syncedDocument = async (uri: string) => {
    const { agentId } = await agentInNewSpace(admin);
    const app = await admin.post<{ id: string }>(`${CORE}/apps`, {
      name: 'Changing notes',
      source: { type: 'mcp', url: notes.url },
      enablement: { kind: 'agents', agentIds: [agentId] },
    });
    expect(app.status).toBe(201);
    const imported = await admin.post<{ documentId: string }>(
      `${CORE}/apps/${app.body.id}/resources/import`,
      {
        agentId,
        uri,
      },
    );
    expect(imported.status).toBe(201);
    const { documentId } = imported.body;
    await waitUntil(async () => (await documentOf(agentId, documentId)).status === 'Ready', 30_000);
    return { agentId, appId: app.body.id, documentId };
  };

  it('ingests a changed resource again when the server says so, and catches up after the server lost its sessions', async () => {
    const { agentId, documentId } = await syncedDocument('notes://handbook');
    await waitUntil(() => notes.subscribers('notes://handbook') === 1, 30_000);
    const first = await documentOf(agentId, documentId);

    await notes.set('notes://handbook', '# Handbook\n\nEvery employee has 32 vacation days a year.');
    await waitUntil(async () => (await textOf(agentId, documentId)).includes('32 vacation days'), 30_000);
    const changed = await documentOf(agentId, documentId);
    expect(changed.contentHash).not.toBe(first.contentHash);
    expect(changed.lastModified > first.lastModified).toBe(true);
    // One notification, one new version: recorded as the platform's, as a sync on demand records it.
    const log = await admin.get<{ entries: { event: string; actor: { type: string } }[] }>(
      `${CORE}/knowledge/${agentId}/documents/${documentId}/log`,
    );
    const replaced = log.body.entries.filter((entry) => entry.event === 'DocumentContentReplaced');
    expect(replaced).toHaveLength(1);

    // The server restarts (its sessions forgotten) and changes the resource while no one is subscribed.
    await notes.forgetSessions();
    await notes.set('notes://handbook', '# Handbook\n\nEvery employee has 35 vacation days a year.');
    await waitUntil(async () => (await textOf(agentId, documentId)).includes('35 vacation days'), 60_000);
    await waitUntil(() => notes.subscribers('notes://handbook') === 1, 30_000);
    expect(api.logs()).toContain("the connection watching an MCP App's resources was lost");
  }, 150_000);

  it('ends the subscription when the last synced document goes, and when the App is deleted', async () => {
    const { agentId, appId, documentId } = await syncedDocument('notes://parking');
    await waitUntil(() => notes.subscribers('notes://parking') === 1, 30_000);
    const deleted = await admin.delete(`${CORE}/knowledge/${agentId}/documents/${documentId}`);
    expect(deleted.status).toBeLessThan(300);
    await waitUntil(() => notes.subscribers('notes://parking') === 0, 30_000);

    const again = await admin.post<{ documentId: string }>(`${CORE}/apps/${appId}/resources/import`, {
      agentId,
      uri: 'notes://parking',
    });
    expect(again.status).toBe(201);
    await waitUntil(() => notes.subscribers('notes://parking') === 1, 30_000);
    expect((await admin.delete(`${CORE}/apps/${appId}`)).status).toBeLessThan(300);
    await waitUntil(() => notes.subscribers('notes://parking') === 0, 30_000);
  }, 120_000);
});
