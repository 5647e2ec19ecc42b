// What an MCP App's server does while one of its tools runs in an Agent's turn, against the MCP project's reference
// server (server-everything) as the App: a long-running tool's progress streams as `tool_progress`; its sampling
// request is answered by the Agent's model (the offline one here), the model call recorded as the person's usage
// under `mcp_sampling`, and refused with an MCP error when MCP_SAMPLING=off; its question for the person streams as
// `tool_elicitation_required` and is answered through the elicitations route (content checked against the schema,
// only by the person whose turn it is), declined at once in a turn nobody follows, cancelled when nobody answers in
// time. A server (the MCP SDK's own) that changes its tools during a call has its App read again, and its log lines
// at `info` and above stream as `tool_log`.
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { waitUntil } from '#testing/fixtures';
import { startChangingServer, type ChangingServer } from '#testing/mcp-changing';
import { startEverythingServer, type EverythingServer } from '#testing/mcp-everything';
import {
  ADMIN_KEY,
  client,
  CORE,
  registeredPerson,
  startTestApi,
  uniqueName,
  type TestApi,
} from './support/api.js';
import { agentInNewSpace, LLM, sendTurn, type Http } from './support/scenario.js';
import { streamTurn } from './support/turn-stream.js';

type Json = Record<string, unknown>;

/** An Agent with the server at `url` as its App: the ids and the model-facing name of a tool. */
async function agentWithApp(admin: Http, url: string) {
  const { agentId, spaceId } = await agentInNewSpace(admin, {
    knowledgeEnabled: false,
    memoryEnabled: false,
  });
  const app = await admin.post<{ id: string }>(`${CORE}/apps`, {
    name: uniqueName('Session'),
    source: { type: 'mcp', url },
    enablement: { kind: 'agents', agentIds: [agentId] },
  });
  expect(app.status).toBe(201);
  // A long tool name reaches the model shortened (with a hash): the Agent's tool list says how.
  let listed: { name: string; appId: string; tool: string }[] = [];
  await waitUntil(async () => {
    const tools = await admin.get<{ data: typeof listed }>(`${CORE}/agents/${agentId}/tools`);
    listed = tools.body.data.filter((listedTool) => listedTool.appId === app.body.id);
    return listed.length > 0;
  }, 15_000);
  const tool = (name: string) => {
    const found = listed.find((listedTool) => listedTool.tool === name);
    if (!found) throw new Error(`the App offers no tool ${name}: ${listed.map((t) => t.tool).join(', ')}`);
    return found.name;
  };
  return { agentId, spaceId, appId: app.body.id, tool };
}

/** The model calls recorded as usage for a conversation, by operation. */
function modelCallsOf(api: TestApi, conversationId: string): Json[] {
  const db = new DatabaseSync(join(api.config.dataDir, 'events.db'), { readOnly: true });
  try {
    return (
      db.prepare("SELECT data FROM events WHERE type = 'ModelCallsRecorded'").all() as { data: string }[]
    )
      .flatMap((row) => (JSON.parse(row.data) as { calls: Json[] }).calls)
      .filter((call) => call.conversationId === conversationId);
  } finally {
    db.close();
  }
}

describe('what an MCP server asks during a tool call (e2e, server-everything)', () => {
  let api: TestApi;
  let admin: Http;
  let everything: EverythingServer;
  let changing: ChangingServer;

  beforeAll(async () => {
    [everything, changing] = await Promise.all([startEverythingServer(), startChangingServer()]);
    api = await startTestApi();
    admin = client(api.url);
  });
  afterAll(async () => {
    await api?.close();
    await everything?.stop();
    await changing?.stop();
  });

  it("streams a long-running tool's progress on its call", async () => {
    const { agentId, tool } = await agentWithApp(admin, everything.url);
    const long = tool('trigger-long-running-operation');
    const stream = streamTurn(api.url, ADMIN_KEY, agentId, {
      message: `call ${long} {"duration":1,"steps":3}`,
    });
    const call = await stream.next('tool_call');
    const last = await stream.next('tool_progress', (data) => data.progress === 3);
    expect(last.data).toEqual({
      callId: expect.stringMatching(/^tcl_/),
      id: call.data.id,
      progress: 3,
      total: 3,
    });
    await stream.done;
    const progress = stream.events.filter((event) => event.event === 'tool_progress');
    // Every progress event comes between the call and its result, in order.
    const names = stream.events.map((event) => event.event);
    expect(names.indexOf('tool_progress')).toBeGreaterThan(names.indexOf('tool_call'));
    expect(names.lastIndexOf('tool_progress')).toBeLessThan(names.indexOf('tool_result'));
    expect(progress.map((event) => event.data.progress)).toEqual(
      [...progress.map((event) => event.data.progress as number)].sort(),
    );
    const done = stream.events.find((event) => event.event === 'done')!;
    expect(JSON.stringify(done.data)).toContain('Long running operation completed');
  });

  it("serves a sampling request with the Agent's model, recorded as the person's usage", async () => {
    const { agentId, tool } = await agentWithApp(admin, everything.url);
    const sampled = await sendTurn(admin, agentId, {
      message: `call ${tool('trigger-sampling-request')} {"prompt":"Name a colour","maxTokens":20000}`,
    });
    expect(sampled.status).toBe(201);
    expect(sampled.body.message.content).toContain('LLM sampling result');
    expect(sampled.body.message.content).toMatch(/"model": "offline-chat"/);
    expect(sampled.body.message.content).toMatch(/"role": "assistant"/);

    // Usage is appended in batches: wait for the turn's calls to be in the log.
    const recorded = (operation: string) =>
      modelCallsOf(api, sampled.body.conversationId).some((call) => call.operation === operation);
    await waitUntil(() => recorded('mcp_sampling') && recorded('conversation'), 15_000);
    const calls = modelCallsOf(api, sampled.body.conversationId);
    const sampling = calls.filter((call) => call.operation === 'mcp_sampling');
    const turn = calls.find((call) => call.operation === 'conversation')!;
    expect(sampling).toHaveLength(1);
    expect(sampling[0]).toMatchObject({
      agentId,
      userId: turn.userId,
      apiKeyId: turn.apiKeyId,
      model: 'offline-chat',
      surface: 'core',
    });
  });

  it('asks the person in a streamed turn: checked content, only theirs, and the tool reads the answer', async () => {
    const { agentId, spaceId, tool } = await agentWithApp(admin, everything.url);
    const stream = streamTurn(api.url, ADMIN_KEY, agentId, {
      message: `call ${tool('trigger-elicitation-request')} {}`,
    });
    const asked = await stream.next('tool_elicitation_required');
    const call = await stream.next('tool_call');
    expect(asked.data).toMatchObject({
      callId: expect.stringMatching(/^tcl_/),
      id: call.data.id,
      elicitationId: expect.stringMatching(/^eli_/),
      message: 'Please provide inputs for the following fields:',
      requestedSchema: expect.objectContaining({ type: 'object', required: ['name'] }),
    });
    const conversationId = String((await stream.next('conversation')).data.conversationId);
    const answer = `${LLM}/${agentId}/conversation/${conversationId}/elicitations/${String(asked.data.elicitationId)}`;

    // Another person who uses the Agent: not their conversation, so not their question.
    const email = `elicit-other-${Date.now()}@example.com`;
    const joined = await admin.post(`${CORE}/spaces/${spaceId}/members`, {
      userId: await registeredPerson(api.url, email),
      role: 'member',
    });
    expect(joined.status).toBe(201);
    const key = await admin.post<{ key: string }>(`${CORE}/api-keys`, {
      name: uniqueName('other'),
      owner: { email },
      agents: [agentId],
    });
    const other = client(api.url, key.body.key);
    expect((await other.post(answer, { action: 'accept', content: { name: 'Eve' } })).status).toBe(404);
    // The schema wants a name, and an integer between 1 and 100.
    const unfit = await admin.post<{ error: { code: string } }>(answer, {
      action: 'accept',
      content: { check: true, integer: 500 },
    });
    expect(unfit.status).toBe(400);
    expect(unfit.body.error.code).toBe('invalid_elicitation_content');
    expect((await admin.post(answer, { action: 'maybe' })).status).toBe(400);
    expect((await admin.post(answer, { action: 'decline', content: { name: 'x' } })).status).toBe(400);

    const accepted = await admin.post(answer, {
      action: 'accept',
      content: { name: 'Ada Lovelace', check: true, integer: 7, untitledMultipleSelectEnum: ['Piano'] },
    });
    expect(accepted.status).toBe(200);
    expect(accepted.body).toEqual({ elicitationId: asked.data.elicitationId, action: 'accept' });
    // Answered once: the question no longer waits.
    expect((await admin.post(answer, { action: 'cancel' })).status).toBe(404);
    await stream.done;
    const result = stream.events.find((event) => event.event === 'tool_result')!;
    expect(result.data).toMatchObject({ ok: true });
    const done = JSON.stringify(stream.events.find((event) => event.event === 'done')!.data);
    expect(done).toContain('Name: Ada Lovelace');
    expect(done).toContain('Favorite Integer: 7');
  });

  it('declines the question at once in a turn nobody follows (not streamed)', async () => {
    const { agentId, tool } = await agentWithApp(admin, everything.url);
    const turn = await sendTurn(admin, agentId, {
      message: `call ${tool('trigger-elicitation-request')} {}`,
    });
    expect(turn.status).toBe(201);
    expect(turn.body.message.content).toContain('User declined to provide the requested information');
  });

  it("reads an App again when its server changes its tools during a call, and streams the call's log lines", async () => {
    const { agentId, appId, tool } = await agentWithApp(admin, changing.url);
    const before = await admin.get<{ mcp: { tools: { name: string }[] } }>(`${CORE}/apps/${appId}`);
    expect(before.body.mcp.tools.map((t) => t.name)).toEqual(['unlock']);
    const stream = streamTurn(api.url, ADMIN_KEY, agentId, { message: `call ${tool('unlock')} {}` });
    await stream.done;
    const logs = stream.events.filter((event) => event.event === 'tool_log').map((event) => event.data);
    expect(logs).toEqual([
      {
        callId: expect.stringMatching(/^tcl_/),
        id: expect.any(String),
        level: 'info',
        text: 'vault: unlocking the secret tool',
      },
    ]);
    // Read again without anyone asking: the App and the Agent's tools now hold the new tool.
    await waitUntil(async () => {
      const app = await admin.get<{ mcp: { tools: { name: string }[] } }>(`${CORE}/apps/${appId}`);
      return app.body.mcp.tools.some((t) => t.name === 'secret');
    }, 15_000);
    const secret = `${appId}__secret`;
    await waitUntil(async () => {
      const tools = await admin.get<{ data: { name: string }[] }>(`${CORE}/agents/${agentId}/tools`);
      return tools.body.data.some((listed) => listed.name === secret);
    }, 15_000);
    const told = await sendTurn(admin, agentId, { message: `call ${secret} {}` });
    expect(told.body.message.content).toContain('the secret is 42');
  });
});

describe('MCP sampling switched off, and a question nobody answers (e2e, server-everything)', () => {
  let api: TestApi;
  let admin: Http;
  let everything: EverythingServer;

  beforeAll(async () => {
    everything = await startEverythingServer();
    api = await startTestApi({ MCP_SAMPLING: 'off', TOOL_APPROVAL_TIMEOUT_SECONDS: '1' });
    admin = client(api.url);
  });
  afterAll(async () => {
    await api?.close();
    await everything?.stop();
  });

  it("refuses the server's sampling request with an MCP error, which the tool reports", async () => {
    const { agentId, tool } = await agentWithApp(admin, everything.url);
    const turn = await sendTurn(admin, agentId, {
      message: `call ${tool('trigger-sampling-request')} {"prompt":"Name a colour"}`,
    });
    expect(turn.status).toBe(201);
    expect(turn.body.message.content).toContain('sampling is switched off on this platform');
    expect(modelCallsOf(api, turn.body.conversationId).map((call) => call.operation)).not.toContain(
      'mcp_sampling',
    );
  });

  it('cancels a question nobody answers in time', async () => {
    const { agentId, tool } = await agentWithApp(admin, everything.url);
    const stream = streamTurn(api.url, ADMIN_KEY, agentId, {
      message: `call ${tool('trigger-elicitation-request')} {}`,
    });
    await stream.next('tool_elicitation_required');
    await stream.done;
    const done = JSON.stringify(stream.events.find((event) => event.event === 'done')!.data);
    expect(done).toContain('User cancelled the elicitation dialog');
  });
});
