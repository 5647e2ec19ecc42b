// MCP servers as Apps, against the MCP project's reference server (server-everything, streamable HTTP on loopback):
// registration reads what it offers (tools with their schemas, resources, prompts), a bearer token stays sealed (not
// in any answer, event, file or log line), the App's server is called through the platform's client, and a server
// that cannot be used is 422 `app_unreachable` with nothing registered. An Agent enabled for the App calls its tools in a
// turn (the offline model's `call <tool> <JSON>` form): the echoed text in the answer, the call in its provenance;
// arguments that do not match the tool's schema are a tool error the model reads, not a failed turn. The Agent's Apps
// list names the server (no views) for its chat.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { McpServers, type AppSource } from '#apps';
import { startEverythingServer, type EverythingServer } from '#testing/mcp-everything';
import { client, CORE, startTestApi, type TestApi } from './support/api.js';
import { agentInNewSpace, LLM, sendTurn } from './support/scenario.js';

interface McpAppBody {
  id: string;
  source: AppSource;
  mcp: {
    server: { name: string; version: string };
    tools: {
      name: string;
      description: string;
      inputSchema: Record<string, unknown>;
      annotations?: object;
    }[];
    resources: unknown[];
    prompts: unknown[];
  } | null;
  token: string;
}

/** Every file under a directory, as bytes decoded leniently: a secret in any of them is found. */
function filesUnder(dir: string): { path: string; text: string }[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory()
      ? filesUnder(path)
      : [{ path, text: readFileSync(path).toString('latin1') }];
  });
}

describe('MCP servers as Apps (e2e, server-everything)', () => {
  let api: TestApi;
  let admin: ReturnType<typeof client>;
  let everything: EverythingServer;

  beforeAll(async () => {
    everything = await startEverythingServer();
    api = await startTestApi();
    admin = client(api.url);
  });
  afterAll(async () => {
    await api?.close();
    await everything?.stop();
  });

  it('registers a server with the tools, resources and prompts it offers, and reads them again on refresh', async () => {
    const created = await admin.post<McpAppBody>(`${CORE}/apps`, {
      name: 'Everything',
      source: { type: 'mcp', url: everything.url },
    });
    expect(created.status).toBe(201);
    expect(created.body.source).toEqual({ type: 'mcp', url: everything.url, auth: 'none' });
    const shown = await admin.get<McpAppBody>(`${CORE}/apps/${created.body.id}`);
    expect(shown.status).toBe(200);
    const offer = shown.body.mcp!;
    expect(offer.server.name).toMatch(/everything/i);
    expect(offer.tools.find((tool) => tool.name === 'echo')).toEqual({
      name: 'echo',
      title: 'Echo Tool',
      description: 'Echoes back the input string',
      inputSchema: expect.objectContaining({
        type: 'object',
        properties: { message: { type: 'string', description: 'Message to echo' } },
        required: ['message'],
      }),
      annotations: expect.objectContaining({ readOnlyHint: true, destructiveHint: false }),
    });
    expect(offer.tools.find((tool) => tool.name === 'get-sum')?.inputSchema).toMatchObject({
      properties: { a: { type: 'number' }, b: { type: 'number' } },
    });
    expect(offer.resources.length).toBeGreaterThan(0);
    expect(offer.prompts.length).toBeGreaterThan(0);

    const refreshed = await admin.post<McpAppBody>(`${CORE}/apps/${created.body.id}/refresh`);
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.mcp).toEqual(offer);
  });

  it('keeps a bearer token sealed: in no answer, event, file or log line, and sends it to the server', async () => {
    const secret = `mcp-bearer-${Math.random().toString(36).slice(2)}-${Date.now()}`;
    const created = await admin.post<McpAppBody>(`${CORE}/apps`, {
      name: 'Everything with a token',
      source: { type: 'mcp', url: everything.url, auth: { type: 'bearer', token: secret } },
    });
    expect(created.status).toBe(201);
    expect(created.body.source).toEqual({ type: 'mcp', url: everything.url, auth: 'bearer' });
    expect((await admin.post(`${CORE}/apps/${created.body.id}/refresh`)).status).toBe(200);
    const answers = [
      JSON.stringify(created.body),
      JSON.stringify((await admin.get(`${CORE}/apps`)).body),
      JSON.stringify((await admin.get(`${CORE}/apps/${created.body.id}`)).body),
    ];
    for (const answer of answers) expect(answer).not.toContain(secret);

    const events = new DatabaseSync(join(api.config.dataDir, 'events.db'), { readOnly: true });
    try {
      const rows = events
        .prepare('SELECT type, data, metadata FROM events WHERE stream_id LIKE ?')
        .all(`%${created.body.id}%`) as { type: string; data: string; metadata: string }[];
      expect(rows.map((row) => row.type)).toEqual(
        expect.arrayContaining(['AppMcpBearerTokenSet', 'AppRegistered', 'AppMcpServerRead']),
      );
      for (const row of rows) expect(`${row.data}${row.metadata}`).not.toContain(secret);
    } finally {
      events.close();
    }
    for (const file of filesUnder(api.config.dataDir))
      expect({ file: file.path, has: file.text.includes(secret) }).toEqual({ file: file.path, has: false });
    expect(api.logs()).not.toContain(secret);

    // The platform's own side opens the token and calls the server with it.
    const servers = api.app.get(McpServers);
    const source = created.body.source as Extract<AppSource, { type: 'mcp' }>;
    expect(await servers.target(created.body.id, source)).toEqual({ url: everything.url, bearer: secret });
    const connection = await servers.connect(created.body.id, source);
    try {
      await expect(connection.callTool('echo', { message: 'sealed' })).resolves.toMatchObject({
        ok: true,
        text: 'Echo: sealed',
      });
      await expect(connection.callTool('get-sum', { a: 19, b: 23 })).resolves.toMatchObject({
        ok: true,
        text: 'The sum of 19 and 23 is 42.',
      });
    } finally {
      await connection.close();
    }
  });

  it('answers 422 app_unreachable, registering nothing, for a server that cannot be used', async () => {
    const before = (await admin.get<{ data: unknown[] }>(`${CORE}/apps`)).body.data.length;
    for (const url of [
      'http://127.0.0.1:9/mcp',
      'http://169.254.169.254/mcp',
      'http://metadata.google.internal/computeMetadata/v1',
      // An HTTP server that speaks no MCP: the platform's own health route.
      `${api.url}/health`,
    ]) {
      const refused = await admin.post(`${CORE}/apps`, {
        name: 'Nothing',
        source: { type: 'mcp', url, auth: { type: 'bearer', token: 'never-echoed-token' } },
      });
      expect({
        url,
        status: refused.status,
        code: (refused.body as { error?: { code?: string } }).error?.code,
      }).toEqual({ url, status: 422, code: 'app_unreachable' });
      expect(JSON.stringify(refused.body)).not.toContain('never-echoed-token');
    }
    expect((await admin.get<{ data: unknown[] }>(`${CORE}/apps`)).body.data.length).toBe(before);
    expect(api.logs()).not.toContain('never-echoed-token');
  });

  it("calls the App's tools in an Agent's turn, with the call in the answer's provenance", async () => {
    const { agentId } = await agentInNewSpace(admin, { knowledgeEnabled: false });
    const created = await admin.post<McpAppBody>(`${CORE}/apps`, {
      name: 'Everything for an Agent',
      source: { type: 'mcp', url: everything.url },
      enablement: { kind: 'agents', agentIds: [agentId] },
    });
    expect(created.status).toBe(201);
    const echo = `${created.body.id}__echo`;
    // Its chat knows it by name (it has no views).
    const agentApps = await admin.get<{ data: unknown[] }>(`${CORE}/agents/${agentId}/apps`);
    expect(agentApps.body.data).toEqual([
      { id: created.body.id, name: 'Everything for an Agent', views: [] },
    ]);

    const echoed = await sendTurn(admin, agentId, { message: `call ${echo} {"message":"hi"}` });
    expect(echoed.status).toBe(201);
    expect(echoed.body.message.content).toContain('Echo: hi');
    const provenance = await admin.get<{
      toolCalls: { name: string; arguments: string | null; ok: boolean }[];
    }>(
      `${LLM}/${agentId}/conversation/${echoed.body.conversationId}/messages/${echoed.body.message.id}/provenance`,
    );
    expect(provenance.status).toBe(200);
    expect(provenance.body.toolCalls).toEqual([
      {
        callId: expect.stringMatching(/^tcl_/),
        name: echo,
        arguments: '{"message":"hi"}',
        ok: true,
        sources: [],
      },
    ]);

    const summed = await sendTurn(admin, agentId, {
      conversationId: echoed.body.conversationId,
      message: `call ${created.body.id}__get-sum {"a":20,"b":22}`,
    });
    expect(summed.status).toBe(200);
    expect(summed.body.message.content).toContain('The sum of 20 and 22 is 42.');

    // Refused before it leaves: the schema wants numbers.
    const refused = await sendTurn(admin, agentId, {
      message: `call ${created.body.id}__get-sum {"a":"twenty"}`,
    });
    expect(refused.status).toBe(201);
    expect(refused.body.message.content).toMatch(/do not match the input schema of get-sum/);

    // Without the call form the offline model leaves the App's tools alone.
    const plain = await sendTurn(admin, agentId, { message: 'hello there' });
    expect(plain.status).toBe(201);
    expect(plain.body.message.content).not.toContain('Echo:');
  });

  it("offers an App's tools only to the Agents it is enabled for", async () => {
    const { agentId } = await agentInNewSpace(admin, { knowledgeEnabled: false });
    const created = await admin.post<McpAppBody>(`${CORE}/apps`, {
      name: 'Everything elsewhere',
      source: { type: 'mcp', url: everything.url },
    });
    expect(created.status).toBe(201);
    const turn = await sendTurn(admin, agentId, {
      message: `call ${created.body.id}__echo {"message":"hi"}`,
    });
    expect(turn.status).toBe(201);
    expect(turn.body.message.content).not.toContain('Echo: hi');
  });
});
