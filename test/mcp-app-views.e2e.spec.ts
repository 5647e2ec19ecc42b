// MCP Apps views, against the MCP project's example MCP App server (server-basic-vanillajs: `get-time`, whose results
// render in `ui://get-time/mcp-app.html`) registered as an App: its offer keeps the tool's view; a turn's call streams
// and records the view with the result it is given; the view route serves the view's HTML in a CSP sandbox and
// nothing no tool declares; a view's own calls through the host follow the model's rules (the same App only, not
// switched off, `ask` only with the person's decision, the conversation's owner only) and are events of the
// conversation.
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { startEverythingServer, type EverythingServer } from '#testing/mcp-everything';
import { startMcpAppExample, type McpAppExampleServer } from '#testing/mcp-app-example';
import {
  ADMIN_KEY,
  client,
  CORE,
  registeredPerson,
  startTestApi,
  uniqueName,
  type TestApi,
} from './support/api.js';
import { agentInNewSpace, LLM, sendTurn, turnsOf, type Http } from './support/scenario.js';

const VIEW = 'ui://get-time/mcp-app.html';

interface ViewToolReply {
  callId: string;
  ok: boolean;
  result: {
    content: { type: string; text: string }[];
    structuredContent?: { time?: string };
    isError?: boolean;
  };
}
type ErrorReply = { error: { code: string } };

describe('MCP App views (e2e, server-basic-vanillajs)', () => {
  let api: TestApi;
  let admin: Http;
  let example: McpAppExampleServer;
  let everything: EverythingServer;

  beforeAll(async () => {
    [example, everything] = await Promise.all([startMcpAppExample(), startEverythingServer()]);
    api = await startTestApi();
    admin = client(api.url);
  });
  afterAll(async () => {
    await api?.close();
    await example?.stop();
    await everything?.stop();
  });

  /** An Agent with the example App enabled, and a turn that called `get-time`: the answer shows its view. */
  async function answerWithView() {
    const { agentId, spaceId } = await agentInNewSpace(admin, { knowledgeEnabled: false });
    const app = await admin.post<{ id: string; mcp: { tools: Record<string, unknown>[] } }>(`${CORE}/apps`, {
      name: uniqueName('Clock'),
      source: { type: 'mcp', url: example.url },
      enablement: { kind: 'agents', agentIds: [agentId] },
    });
    expect(app.status).toBe(201);
    const getTime = `${app.body.id}__get-time`;
    const turn = await sendTurn(admin, agentId, { message: `call ${getTime} {}` });
    expect(turn.status).toBe(201);
    const { conversationId } = turn.body;
    return {
      agentId,
      spaceId,
      appId: app.body.id,
      app: app.body,
      getTime,
      conversationId,
      messageId: turn.body.message.id,
    };
  }

  const callRoute = (agentId: string, conversationId: string, name: string) =>
    `${LLM}/${agentId}/conversation/${conversationId}/app-tools/${name}`;

  function conversationEvents(conversationId: string): string[] {
    const db = new DatabaseSync(join(api.config.dataDir, 'events.db'), { readOnly: true });
    try {
      return (
        db
          .prepare('SELECT type FROM events WHERE stream_id = ? ORDER BY position')
          .all(`conversation-${conversationId}`) as { type: string }[]
      ).map((row) => row.type);
    } finally {
      db.close();
    }
  }

  it("keeps the tool's view in the offer and records it with the call's result", async () => {
    const { agentId, appId, app, conversationId, messageId, getTime } = await answerWithView();
    expect(app.mcp.tools.find((tool) => tool.name === 'get-time')).toMatchObject({
      name: 'get-time',
      ui: { resourceUri: VIEW },
    });
    const provenance = await admin.get<{ toolCalls: Record<string, unknown>[] }>(
      `${LLM}/${agentId}/conversation/${conversationId}/messages/${messageId}/provenance`,
    );
    expect(provenance.status).toBe(200);
    expect(provenance.body.toolCalls).toEqual([
      {
        callId: expect.stringMatching(/^tcl_/),
        name: getTime,
        arguments: '{}',
        ok: true,
        sources: [],
        view: {
          appId,
          uri: VIEW,
          result: {
            content: [{ type: 'text', text: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) }],
            structuredContent: { time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) },
          },
        },
      },
    ]);
  });

  it("streams the view with the call's result in tool_result", async () => {
    const { agentId, getTime, appId } = await answerWithView();
    const response = await fetch(`${api.url}${turnsOf(agentId)}`, {
      method: 'POST',
      headers: { 'x-api-key': ADMIN_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ message: `call ${getTime} {}`, stream: true }),
    });
    expect(response.status).toBe(200);
    const block = (await response.text()).split('\n\n').find((part) => part.startsWith('event: tool_result'));
    const data = JSON.parse(
      block!
        .split('\n')
        .find((line) => line.startsWith('data: '))!
        .slice(6),
    ) as {
      view: { appId: string; uri: string; result: string };
    };
    expect(data.view).toEqual({ appId, uri: VIEW, result: expect.any(String) });
    expect(JSON.parse(data.view.result)).toMatchObject({ structuredContent: { time: expect.any(String) } });
  });

  it("serves the view's HTML in a CSP sandbox, and no URI that no tool of the App declares", async () => {
    const { agentId, appId } = await answerWithView();
    const viewRoute = (uri: string, app = appId, agent = agentId) =>
      `${api.url}${CORE}/mcp-views/${agent}/${app}?uri=${encodeURIComponent(uri)}`;
    const served = await fetch(viewRoute(VIEW), { headers: { 'x-api-key': ADMIN_KEY } });
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = served.headers.get('content-security-policy') ?? '';
    expect(csp).toMatch(/^sandbox allow-scripts allow-forms;/);
    expect(csp).not.toContain('allow-same-origin');
    expect(csp).toContain("connect-src 'none'");
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'self'");
    expect(served.headers.get('cache-control')).toBe('no-store');
    expect(served.headers.get('set-cookie')).toBeNull();
    expect(await served.text()).toContain('id="get-time-btn"');

    const refused = async (url: string) => {
      const reply = await fetch(url, { headers: { 'x-api-key': ADMIN_KEY } });
      return { status: reply.status, code: ((await reply.json()) as ErrorReply).error.code };
    };
    expect(await refused(viewRoute('ui://get-time/other.html'))).toEqual({
      status: 404,
      code: 'app_view_not_found',
    });
    // The App's server has it, but only as a resource no tool renders in: still refused.
    expect(await refused(viewRoute('ui://nothing/here.html', 'app_unknown'))).toEqual({
      status: 404,
      code: 'app_view_not_found',
    });
    const { agentId: otherAgent } = await agentInNewSpace(admin, { knowledgeEnabled: false });
    expect(await refused(viewRoute(VIEW, appId, otherAgent))).toEqual({
      status: 404,
      code: 'app_view_not_found',
    });
    expect(
      (await fetch(viewRoute('https://example.com/x.html'), { headers: { 'x-api-key': 'nope' } })).status,
    ).toBe(401);
  });

  it("calls the view's own tool through the host, recorded as the model's calls are", async () => {
    const { agentId, conversationId, messageId, getTime } = await answerWithView();
    const before = conversationEvents(conversationId).filter((type) => type.startsWith('ToolCall')).length;
    const called = await admin.post<ViewToolReply>(callRoute(agentId, conversationId, getTime), {
      messageId,
      arguments: {},
    });
    expect(called.status).toBe(200);
    expect(called.body).toEqual({
      callId: expect.stringMatching(/^tcl_/),
      ok: true,
      result: {
        content: [{ type: 'text', text: expect.any(String) }],
        structuredContent: { time: expect.stringMatching(/^\d{4}-/) },
      },
    });
    const after = conversationEvents(conversationId).filter((type) => type.startsWith('ToolCall'));
    expect(after.slice(before)).toEqual(['ToolCallRequested', 'ToolCallCompleted']);
  });

  it("refuses a tool of another App, a tool set to never, an ask without a decision, and another's conversation", async () => {
    const { agentId, spaceId, appId, conversationId, messageId, getTime } = await answerWithView();
    const other = await admin.post<{ id: string }>(`${CORE}/apps`, {
      name: uniqueName('Everything'),
      source: { type: 'mcp', url: everything.url },
      enablement: { kind: 'agents', agentIds: [agentId] },
    });
    expect(other.status).toBe(201);
    const refusal = async (name: string, body: Record<string, unknown>, http = admin) => {
      const reply = await http.post<ErrorReply>(callRoute(agentId, conversationId, name), body);
      return { status: reply.status, code: reply.body.error?.code };
    };
    expect(await refusal(`${other.body.id}__echo`, { messageId, arguments: { message: 'hi' } })).toEqual({
      status: 403,
      code: 'app_tool_of_another_app',
    });
    expect(await refusal(`${appId}__nothing`, { messageId })).toEqual({
      status: 404,
      code: 'app_tool_not_found',
    });

    expect(
      (await admin.patch(`${CORE}/agents/${agentId}/tools/${getTime}`, { approval: 'never' })).status,
    ).toBe(200);
    expect(await refusal(getTime, { messageId })).toEqual({ status: 403, code: 'app_tool_switched_off' });

    expect(
      (await admin.patch(`${CORE}/agents/${agentId}/tools/${getTime}`, { approval: 'ask' })).status,
    ).toBe(200);
    expect(await refusal(getTime, { messageId })).toEqual({ status: 409, code: 'tool_approval_required' });
    const approved = await admin.post<ViewToolReply>(callRoute(agentId, conversationId, getTime), {
      messageId,
      decision: 'approve',
    });
    expect(approved.status).toBe(200);
    expect(approved.body.ok).toBe(true);
    const denied = await admin.post<ViewToolReply>(callRoute(agentId, conversationId, getTime), {
      messageId,
      decision: 'deny',
    });
    expect(denied.status).toBe(200);
    expect(denied.body).toMatchObject({ ok: false, result: { isError: true } });
    expect(
      conversationEvents(conversationId)
        .filter((type) => type.startsWith('ToolCall'))
        .slice(-5),
    ).toEqual([
      'ToolCallRequested',
      'ToolCallApproved',
      'ToolCallCompleted',
      'ToolCallRequested',
      'ToolCallDenied',
    ]);

    // A member of the Space uses the Agent, but the conversation is not theirs.
    const email = `views-member-${Date.now()}@example.com`;
    const joined = await admin.post(`${CORE}/spaces/${spaceId}/members`, {
      userId: await registeredPerson(api.url, email),
      role: 'member',
    });
    expect(joined.status).toBe(201);
    const key = await admin.post<{ key: string }>(`${CORE}/api-keys`, {
      name: uniqueName('views member'),
      owner: { email },
      agents: [agentId],
    });
    expect(key.status).toBe(201);
    expect(await refusal(getTime, { messageId, decision: 'approve' }, client(api.url, key.body.key))).toEqual(
      {
        status: 404,
        code: 'conversation_not_found',
      },
    );
  });
});
