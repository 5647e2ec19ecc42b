// A URL App's tools in an Agent's turns over real HTTP: the App (a small server written here, on loopback: we own the
// URL App contract) declares tools in its `/meta` with input schemas, paths and hints; a turn's `call <appId>__<tool>
// {…}` POSTs the arguments to the App and the model reads its answer. The App gets the proxy's `svc_` headers —
// `svc_session_token` of the person whose turn it is when signed in, only `svc_user_id` under an API key — and never
// a platform credential; schema-invalid arguments never leave; a 500, a timeout or an `isError` answer is a tool
// error the model reads; a destructive tool asks first; the calls are in the Agent's tool list and the provenance.
import { AppSessionTokens } from '#apps';
import { ADMIN_KEY, client, CORE, startTestApi, uniqueName, type TestApi } from './support/api.js';
import { agentInNewSpace, LLM, sendTurn, type Http } from './support/scenario.js';
import { json, startUrlApp, WEATHER_TOOLS, type UrlApp } from './support/url-app.js';

const META = {
  id: 'weather',
  name: 'Weather',
  tools: [
    ...WEATHER_TOOLS,
    { name: 'explode', description: 'Always fails', path: '/api/explode' },
    { name: 'slow', description: 'Never answers in time' },
    { name: 'plain', description: 'Answers plain text' },
    { name: 'refuse', description: 'Answers an error of its own' },
  ],
};

/** The App: each tool's path, answered as the tool is meant to. */
const startApp = (): Promise<UrlApp> =>
  startUrlApp(META, ({ url, body }, response) => {
    switch (url) {
      case '/tools/forecast':
        return json(response, 200, { content: `Sunny in ${(JSON.parse(body) as { city: string }).city}` });
      case '/api/explode':
        return json(response, 500, { error: 'the weather database is down' });
      case '/tools/slow':
        return; // never answers: the call's timeout ends it
      case '/tools/plain':
        return void response.writeHead(200, { 'content-type': 'text/plain' }).end('Plain text, as it is');
      case '/tools/refuse':
        return json(response, 200, { content: [{ type: 'text', text: 'No such city' }], isError: true });
      case '/api/forget':
        return json(response, 200, { content: [{ type: 'text', text: 'Forgot the city' }] });
      default:
        return json(response, 404, { error: 'not here' });
    }
  });

describe("a URL App's tools in an Agent's turns (e2e)", () => {
  let api: TestApi;
  let admin: Http;
  let app: UrlApp;

  beforeAll(async () => {
    app = await startApp();
    api = await startTestApi({ MCP_CALL_TIMEOUT_SECONDS: '2' });
    admin = client(api.url);
  });
  afterAll(async () => {
    await api?.close();
    app.close();
    expect(api.logs()).not.toContain('unhandled error');
  });

  const agentWithApp = async () => {
    const { agentId, spaceId } = await agentInNewSpace(admin, {
      knowledgeEnabled: false,
      memoryEnabled: false,
    });
    const created = await admin.post<{ id: string; meta: { tools: unknown[] } }>(`${CORE}/apps`, {
      name: uniqueName('Weather'),
      source: { type: 'url', url: app.url },
      enablement: { kind: 'agents', agentIds: [agentId] },
    });
    expect(created.status).toBe(201);
    return { agentId, spaceId, appId: created.body.id, meta: created.body.meta };
  };
  const calls = (path: string) => app.seen.filter((seen) => seen.url === path);

  it('declares its tools with their schemas and paths, listed for the Agent with their approvals', async () => {
    const { agentId, appId, meta } = await agentWithApp();
    expect(meta.tools[0]).toEqual({ ...META.tools[0], path: '/tools/forecast' });
    expect(meta.tools[1]).toEqual({ ...META.tools[1], inputSchema: { type: 'object' } });
    expect(meta.tools[2]).toEqual({ ...META.tools[2], inputSchema: { type: 'object' } });
    const listed = await admin.get<{ data: { name: string; destructive: boolean; approval: string }[] }>(
      `${CORE}/agents/${agentId}/tools`,
    );
    expect(listed.status).toBe(200);
    expect(listed.body.data.map(({ name, destructive, approval }) => [name, destructive, approval])).toEqual(
      META.tools.map((tool) => [
        `${appId}__${tool.name}`,
        tool.name === 'forget-city',
        tool.name === 'forget-city' ? 'ask' : 'auto',
      ]),
    );
  });

  it("POSTs a key's call to the App, which reads the key's person, and the model reads the answer", async () => {
    const { agentId, appId } = await agentWithApp();
    const before = calls('/tools/forecast').length;
    const turn = await sendTurn(admin, agentId, { message: `call ${appId}__forecast {"city":"Berlin"}` });
    expect(turn.status).toBe(201);
    expect(turn.body.message.content).toContain('Sunny in Berlin');
    const seen = calls('/tools/forecast').slice(before);
    expect(seen).toHaveLength(1);
    expect(JSON.parse(seen[0]!.body)).toEqual({ city: 'Berlin' });
    const me = await admin.get<{ id: string }>(`${CORE}/users/me`);
    expect(seen[0]!.headers).toMatchObject({
      'content-type': 'application/json',
      svc_user_id: me.body.id,
      svc_server_url: api.url,
      svc_base_path: `/app/${appId}`,
    });
    // No bearer for a key's turn, and nothing of the platform's credentials.
    expect(seen[0]!.headers.svc_session_token).toBeUndefined();
    expect(JSON.stringify(seen[0]!.headers)).not.toContain(ADMIN_KEY);
    const provenance = await admin.get<{ toolCalls: { name: string; ok: boolean }[] }>(
      `${LLM}/${agentId}/conversation/${turn.body.conversationId}/messages/${turn.body.message.id}/provenance`,
    );
    expect(provenance.body.toolCalls).toEqual([
      {
        callId: expect.stringMatching(/^tcl_/),
        name: `${appId}__forecast`,
        arguments: '{"city":"Berlin"}',
        ok: true,
        sources: [],
      },
    ]);
  });

  it("sends a signed-in person's svc_session_token, naming that person and this App", async () => {
    const { agentId, spaceId, appId } = await agentWithApp();
    const invitation = await admin.post<{ link: string }>(`${CORE}/invitations`, {
      email: `url-tools-${Date.now()}@example.com`,
      role: 'member',
    });
    const token = decodeURIComponent(invitation.body.link.split('#token=')[1]!);
    const accepted = await fetch(`${api.url}${CORE}/invitations/accept`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token, name: 'Tess Tools', password: 'a long passphrase 4 tools' }),
    });
    await accepted.text();
    const cookie = /ap_session=[^;]+/.exec(accepted.headers.get('set-cookie') ?? '')![0];
    const person = client(api.url, null);
    const me = await person.get<{ id: string }>(`${CORE}/users/me`, { cookie });
    const joined = await admin.post(`${CORE}/spaces/${spaceId}/members`, {
      userId: me.body.id,
      role: 'member',
    });
    expect(joined.status).toBe(201);

    const before = calls('/tools/forecast').length;
    const turn = await sendTurn(
      person,
      agentId,
      { message: `call ${appId}__forecast {"city":"Lisbon"}` },
      { cookie, origin: api.url },
    );
    expect(turn.status).toBe(201);
    expect(turn.body.message.content).toContain('Sunny in Lisbon');
    const [seen] = calls('/tools/forecast').slice(before);
    const sessionToken = String(seen!.headers.svc_session_token);
    expect(seen!.headers.svc_user_id).toBeUndefined();
    expect(seen!.headers.cookie).toBeUndefined();
    const claims = await api.app.get(AppSessionTokens).verify(sessionToken);
    expect(claims).toMatchObject({ appId, userId: me.body.id });
    // It is the bridge's bearer for that person and App.
    const bridged = await fetch(`${api.url}/api/v1/bridge/agents/${agentId}`, {
      headers: { authorization: `Bearer ${sessionToken}` },
    });
    expect(bridged.status).toBe(200);
  });

  it('never sends arguments that do not match the schema; a 500, a timeout and an App error are tool errors', async () => {
    const { agentId, appId } = await agentWithApp();
    const before = app.seen.length;
    const refused = await sendTurn(admin, agentId, { message: `call ${appId}__forecast {"city":5}` });
    expect(refused.status).toBe(201);
    expect(refused.body.message.content).toMatch(/do not match the input schema of forecast/);
    const extra = await sendTurn(admin, agentId, {
      message: `call ${appId}__forecast {"city":"Rome","secret":"x"}`,
    });
    expect(extra.body.message.content).toMatch(/do not match the input schema of forecast/);
    expect(app.seen.length).toBe(before);

    const exploded = await sendTurn(admin, agentId, { message: `call ${appId}__explode {}` });
    expect(exploded.status).toBe(201);
    expect(exploded.body.message.content).toMatch(/The App answered 500: .*weather database is down/);
    const slow = await sendTurn(admin, agentId, { message: `call ${appId}__slow {}` });
    expect(slow.status).toBe(201);
    expect(slow.body.message.content).toContain('The App did not answer in time');
    const refusedByApp = await sendTurn(admin, agentId, { message: `call ${appId}__refuse {}` });
    expect(refusedByApp.body.message.content).toContain('No such city');
    const plain = await sendTurn(admin, agentId, { message: `call ${appId}__plain {}` });
    expect(plain.body.message.content).toContain('Plain text, as it is');

    const provenance = await admin.get<{ toolCalls: { name: string; ok: boolean }[] }>(
      `${LLM}/${agentId}/conversation/${refusedByApp.body.conversationId}/messages/${refusedByApp.body.message.id}/provenance`,
    );
    expect(provenance.body.toolCalls).toEqual([
      expect.objectContaining({ name: `${appId}__refuse`, ok: false }),
    ]);
  });

  it('pauses a destructive tool for approval, and calls the App once approved', async () => {
    const { agentId, appId } = await agentWithApp();
    const before = calls('/api/forget').length;
    const paused = await sendTurn(admin, agentId, { message: `call ${appId}__forget-city {"city":"Oslo"}` });
    expect(paused.status).toBe(202);
    const waiting = paused.body as unknown as {
      conversationId: string;
      pendingToolCalls: { callId: string; name: string }[];
    };
    expect(waiting).toMatchObject({
      status: 'awaiting_approval',
      pendingToolCalls: [{ name: `${appId}__forget-city` }],
    });
    expect(calls('/api/forget').length).toBe(before);
    const answered = await admin.post<{ turn: { status: string; message: { content: string } } }>(
      `${LLM}/${agentId}/conversation/${waiting.conversationId}/tool-calls/${waiting.pendingToolCalls[0]!.callId}`,
      { decision: 'approve' },
    );
    expect(answered.status).toBe(200);
    expect(answered.body.turn.message.content).toContain('Forgot the city');
    expect(
      calls('/api/forget')
        .slice(before)
        .map((seen) => JSON.parse(seen.body)),
    ).toEqual([{ city: 'Oslo' }]);
  });
});
