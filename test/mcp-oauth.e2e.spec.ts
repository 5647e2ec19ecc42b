// MCP Apps that sign in each person (OAuth 2.1, as the MCP authorization spec describes), against an MCP server and
// authorization server built from the MCP SDK's own parts (test/support/mcp-oauth-server.ts): registration finds the
// authorization server and registers the platform's client dynamically (no tools before anyone connects); a person
// connects (the redirects driven with fetch: PKCE S256, a single-use state that is theirs alone), which reads the
// server's tools; a turn of theirs calls a tool with their own token; another person, or an API key without a
// connection, gets the "connect your account" tool error (streamed: `tool_auth_required`); an access token the server
// no longer takes is refreshed; disconnecting erases the tokens; no token is ever in any file of the data directory
// in the clear.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { client, CORE, registeredPerson, startTestApi, uniqueName, type TestApi } from './support/api.js';
import { startOAuthMcpServer, type OAuthMcpServer } from './support/mcp-oauth-server.js';
import { agentInNewSpace, sendTurn } from './support/scenario.js';

type Http = ReturnType<typeof client>;

function filesUnder(dir: string): { path: string; text: string }[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory()
      ? filesUnder(path)
      : [{ path, text: readFileSync(path).toString('latin1') }];
  });
}

describe('MCP Apps with OAuth 2.1 (e2e, the MCP SDK’s authorization server)', () => {
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

  /** A member of the Space, granted the Agent: their key and user id. */
  const member = async (spaceId: string, agentId: string, label: string) => {
    const email = `${label}-${Date.now()}@example.com`;
    const userId = await registeredPerson(api.url, email);
    expect((await admin.post(`${CORE}/spaces/${spaceId}/members`, { userId, role: 'member' })).status).toBe(
      201,
    );
    const key = await admin.post<{ key: string }>(`${CORE}/api-keys`, {
      name: uniqueName(label),
      owner: { email },
      agents: [agentId],
    });
    expect(key.status).toBe(201);
    return { http: client(api.url, key.body.key), key: key.body.key, userId };
  };

  /** Starts the person's connection and follows the authorization server's redirect: the callback's path. */
  const authorize = async (person: Http, appId: string) => {
    const started = await person.post<{ authorizationUrl: string }>(`${CORE}/apps/${appId}/oauth/connect`, {
      returnTo: '/chat',
    });
    expect(started.status).toBe(200);
    const url = new URL(started.body.authorizationUrl);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('code_challenge')).toMatch(/^[\w-]{43}$/);
    const approved = await fetch(url, { redirect: 'manual' });
    await approved.body?.cancel();
    expect(approved.status).toBe(302);
    const back = new URL(approved.headers.get('location')!);
    expect(back.pathname).toBe(`${CORE}/apps/oauth/callback`);
    return `${back.pathname}${back.search}`;
  };

  const streamEvents = (stream: string) => {
    const db = new DatabaseSync(join(api.config.dataDir, 'events.db'), { readOnly: true });
    try {
      return (
        db.prepare('SELECT type FROM events WHERE stream_id = ? ORDER BY position').all(stream) as {
          type: string;
        }[]
      ).map((row) => row.type);
    } finally {
      db.close();
    }
  };

  it('connects each person with their own account, calls tools with it, refreshes it and erases it', async () => {
    const { agentId, spaceId } = await agentInNewSpace(admin, {
      knowledgeEnabled: false,
      memoryEnabled: false,
    });
    const registered = await admin.post<{ id: string; source: object; mcp: unknown }>(`${CORE}/apps`, {
      name: 'Notes',
      source: { type: 'mcp', url: server.url, auth: { type: 'oauth' } },
      enablement: { kind: 'agents', agentIds: [agentId] },
    });
    expect(registered.status).toBe(201);
    expect(registered.body.source).toEqual({ type: 'mcp', url: server.url, auth: 'oauth' });
    expect(registered.body.mcp).toBeNull();
    const appId = registered.body.id;
    const whoami = `call ${appId}__whoami {}`;

    const ada = await member(spaceId, agentId, 'oauth-ada');
    const bob = await member(spaceId, agentId, 'oauth-bob');
    const callback = await authorize(ada.http, appId);
    // The state is Ada's: Bob cannot complete it.
    const stolen = await bob.http.get<{ error: { code: string } }>(callback);
    expect({ status: stolen.status, code: stolen.body.error.code }).toEqual({
      status: 400,
      code: 'invalid_state',
    });
    const connected = await fetch(`${api.url}${callback}`, {
      headers: { 'x-api-key': ada.key },
      redirect: 'manual',
    });
    await connected.body?.cancel();
    expect(connected.status).toBe(303);
    expect(connected.headers.get('location')).toBe(`/chat?app_connected=${appId}`);
    // Single use.
    const replayed = await ada.http.get<{ error: { code: string } }>(callback);
    expect({ status: replayed.status, code: replayed.body.error.code }).toEqual({
      status: 400,
      code: 'invalid_state',
    });
    expect((await ada.http.get(`${CORE}/apps/${appId}/oauth/connection`)).body).toMatchObject({
      connected: true,
    });
    expect((await bob.http.get(`${CORE}/apps/${appId}/oauth/connection`)).body).toMatchObject({
      connected: false,
    });

    // The first connection read what the server offers.
    const app = await admin.get<{ mcp: { tools: { name: string }[] } }>(`${CORE}/apps/${appId}`);
    expect(app.body.mcp.tools.map((tool) => tool.name)).toEqual(['whoami']);

    const adas = await sendTurn(ada.http, agentId, { message: whoami });
    expect(adas.body.message.content).toContain('signed in as account-1');
    for (const other of [bob.http, admin]) {
      const refused = await sendTurn(other, agentId, { message: whoami });
      expect(refused.body.message.content).toContain('Notes needs you to connect your account');
    }

    // Streamed, the turn tells the client where the person connects.
    const streamed = await fetch(`${api.url}${CORE}/llm/${agentId}/conversation`, {
      method: 'POST',
      headers: { 'x-api-key': bob.key, 'content-type': 'application/json' },
      body: JSON.stringify({ message: whoami, stream: true }),
    });
    const blocks = (await streamed.text()).split('\n\n');
    const authRequired = blocks.find((block) => block.startsWith('event: tool_auth_required\n'));
    expect(JSON.parse(authRequired?.split('\ndata: ')[1] ?? 'null')).toEqual({
      id: expect.any(String),
      name: `${appId}__whoami`,
      appId,
      connectUrl: `${CORE}/apps/${appId}/oauth/connect`,
    });

    // The server stops taking the access token: the refresh token gets a new one, recorded sealed.
    server.expireAccessTokens();
    const refreshed = await sendTurn(ada.http, agentId, { message: whoami });
    expect(refreshed.body.message.content).toContain('signed in as account-1');
    const stream = `app-oauth-${appId}-${ada.userId}`;
    expect(streamEvents(stream)).toEqual([
      'AppOAuthAuthorizationStarted',
      'AppOAuthAccountConnected',
      'AppOAuthTokensRefreshed',
    ]);

    expect((await ada.http.delete(`${CORE}/apps/${appId}/oauth/connection`)).status).toBe(204);
    expect((await ada.http.get(`${CORE}/apps/${appId}/oauth/connection`)).body).toMatchObject({
      connected: false,
    });
    const gone = await sendTurn(ada.http, agentId, { message: whoami });
    expect(gone.body.message.content).toContain('Notes needs you to connect your account');
    expect(streamEvents(stream).at(-1)).toBe('AppOAuthAccountDisconnected');

    expect(server.issued.length).toBeGreaterThanOrEqual(4);
    const files = filesUnder(api.config.dataDir);
    for (const token of server.issued)
      expect(files.filter((file) => file.text.includes(token)).map((file) => file.path)).toEqual([]);
    for (const token of server.issued) expect(api.logs()).not.toContain(token);
  });

  it('refuses a server that cannot sign anyone in, and a connection to an App that signs no one in', async () => {
    const closed = await admin.post<{ error: { code: string } }>(`${CORE}/apps`, {
      name: 'Nowhere',
      source: { type: 'mcp', url: 'http://127.0.0.1:1/mcp', auth: { type: 'oauth' } },
    });
    expect({ status: closed.status, code: closed.body.error.code }).toEqual({
      status: 422,
      code: 'app_unreachable',
    });
    const secretless = await admin.post<{ error: { param: string } }>(`${CORE}/apps`, {
      name: 'Half',
      source: { type: 'mcp', url: server.url, auth: { type: 'oauth', clientSecret: 's' } },
    });
    expect(secretless.status).toBe(400);
    const plain = await admin.post<{ id: string }>(`${CORE}/apps`, {
      name: 'Plain',
      source: { type: 'url', url: 'http://127.0.0.1:9' },
    });
    const refused = await admin.post(`${CORE}/apps/${plain.body.id}/oauth/connect`, {});
    expect(refused.status).toBe(404);
  });
});
