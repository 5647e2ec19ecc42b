// A deactivated person's OAuth connections to MCP Apps are erased (e2e, the MCP SDK's authorization server in
// test/support/mcp-oauth-server.ts): Ada connects one App and begins connecting another; an admin deactivates her;
// both connections end (their data keys destroyed, as disconnecting destroys them), and her tokens are no longer
// used for anything. Reactivated, she connects again, and that connection stays.
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { waitUntil } from '#testing/fixtures';
import { client, CORE, registeredPerson, startTestApi, uniqueName, type TestApi } from './support/api.js';
import { connectAccount, startOAuthMcpServer, type OAuthMcpServer } from './support/mcp-oauth-server.js';
import { agentInNewSpace } from './support/scenario.js';
import { projectionsCaughtUp } from './support/waits.js';

type Http = ReturnType<typeof client>;

describe("a deactivated person's OAuth connections to MCP Apps (e2e)", () => {
  let api: TestApi;
  let admin: Http;
  let server: OAuthMcpServer;

  beforeAll(async () => {
    server = await startOAuthMcpServer();
    api = await startTestApi();
    admin = client(api.url);
  });
  afterAll(async () => {
    await api?.close();
    await server?.stop();
  });

  const read = <T>(file: string, sql: string, ...params: string[]): T[] => {
    const db = new DatabaseSync(join(api.config.dataDir, file), { readOnly: true });
    try {
      return db.prepare(sql).all(...params) as T[];
    } finally {
      db.close();
    }
  };
  const streamEvents = (stream: string) =>
    read<{ type: string }>(
      'events.db',
      'SELECT type FROM events WHERE stream_id = ? ORDER BY position',
      stream,
    ).map((row) => row.type);
  const keysOf = (appId: string, userId: string) =>
    read<{ key_id: string }>(
      'keys.db',
      'SELECT key_id FROM data_keys WHERE key_id LIKE ?',
      `app-oauth-${appId}-${userId}-%`,
    ).map((row) => row.key_id);

  it('erases them when the person is deactivated, and keeps a connection made after reactivation', async () => {
    const { agentId, spaceId } = await agentInNewSpace(admin, {
      knowledgeEnabled: false,
      memoryEnabled: false,
    });
    const register = async (name: string) => {
      const app = await admin.post<{ id: string }>(`${CORE}/apps`, {
        name,
        source: { type: 'mcp', url: server.url, auth: { type: 'oauth' } },
        enablement: { kind: 'agents', agentIds: [agentId] },
      });
      expect(app.status).toBe(201);
      return app.body.id;
    };
    const notes = await register('Notes');
    const calendar = await register('Calendar');
    const email = `deactivated-${Date.now()}@example.com`;
    const userId = await registeredPerson(api.url, email);
    expect((await admin.post(`${CORE}/spaces/${spaceId}/members`, { userId, role: 'member' })).status).toBe(
      201,
    );
    const key = (
      await admin.post<{ key: string }>(`${CORE}/api-keys`, {
        name: uniqueName('ada'),
        owner: { email },
        agents: [agentId],
      })
    ).body.key;
    const ada = client(api.url, key);

    expect((await connectAccount(api.url, key, notes)).status).toBe(303);
    // Begun, never completed.
    expect((await ada.post(`${CORE}/apps/${calendar}/oauth/connect`, { returnTo: '/chat' })).status).toBe(
      200,
    );
    expect((await ada.get(`${CORE}/apps/${notes}/oauth/connection`)).body).toMatchObject({ connected: true });
    expect(keysOf(notes, userId)).toEqual([`app-oauth-${notes}-${userId}-0`]);
    expect(keysOf(calendar, userId)).toEqual([`app-oauth-${calendar}-${userId}-0`]);

    expect((await admin.post(`${CORE}/users/${userId}/deactivate`)).status).toBe(200);
    await waitUntil(
      () =>
        streamEvents(`app-oauth-${notes}-${userId}`).at(-1) === 'AppOAuthAccountDisconnected' &&
        streamEvents(`app-oauth-${calendar}-${userId}`).at(-1) === 'AppOAuthAccountDisconnected',
      30_000,
    );
    expect(keysOf(notes, userId)).toEqual([]);
    expect(keysOf(calendar, userId)).toEqual([]);
    expect(streamEvents(`app-oauth-${notes}-${userId}`)).toEqual([
      'AppOAuthAuthorizationStarted',
      'AppOAuthAccountConnected',
      'AppOAuthAccountDisconnected',
    ]);

    expect((await admin.post(`${CORE}/users/${userId}/reactivate`)).status).toBe(200);
    expect((await ada.get(`${CORE}/apps/${notes}/oauth/connection`)).body).toMatchObject({
      connected: false,
    });
    expect((await connectAccount(api.url, key, notes)).status).toBe(303);
    // Once the process has read everything since (another person's deactivation included), Ada's is untouched.
    const bobEmail = `bob-${Date.now()}@example.com`;
    const bobId = await registeredPerson(api.url, bobEmail);
    expect((await admin.post(`${CORE}/users/${bobId}/deactivate`)).status).toBe(200);
    await projectionsCaughtUp(api.url);
    expect((await ada.get(`${CORE}/apps/${notes}/oauth/connection`)).body).toMatchObject({ connected: true });
    expect(keysOf(notes, userId)).toEqual([`app-oauth-${notes}-${userId}-1`]);
  });
});
