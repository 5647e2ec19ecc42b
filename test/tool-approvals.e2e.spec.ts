// Approving App tool calls, against the MCP project's reference server (server-everything) as the App: an Agent's
// managers switch its App tools off or set how their calls are approved (a member reads them, cannot change them); a
// call of an `ask` tool pauses the turn (`tool_approval_required` streamed, 202 with the waiting calls when not
// streamed) until the person whose turn it is approves (the call is made), denies (the model reads it was refused) or
// lets it expire (denied); another user's decision is 404. Every call is events of the conversation, its arguments and
// result sealed with the answer's key, which deleting the answer destroys; the audit trail shows who approved.
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { ContentCipher } from '#key-store';
import { waitUntil } from '#testing/fixtures';
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
import { agentInNewSpace, LLM, sendTurn, turnsOf, type Http } from './support/scenario.js';

type Json = Record<string, unknown>;
interface SseEvent {
  event: string;
  data: Json;
}
interface AgentToolBody {
  name: string;
  appId: string;
  tool: string;
  destructive: boolean;
  enabled: boolean;
  approval: string;
}

/** A streamed turn read as it comes: `until(name)` waits for an event of that name. */
function openStream(baseUrl: string, key: string, agentId: string, body: Json) {
  const events: SseEvent[] = [];
  let buffer = '';
  let ended = false;
  const done = (async () => {
    const response = await fetch(`${baseUrl}${turnsOf(agentId)}`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ ...body, stream: true }),
    });
    expect(response.status).toBe(200);
    const decoder = new TextDecoder();
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const lines = block.split('\n');
        const event = lines.find((line) => line.startsWith('event: '))?.slice(7) ?? 'message';
        const data = lines
          .filter((line) => line.startsWith('data: '))
          .map((line) => line.slice(6))
          .join('\n');
        events.push({ event, data: JSON.parse(data) as Json });
      }
    }
    ended = true;
  })();
  const until = async (name: string): Promise<SseEvent> => {
    await waitUntil(() => ended || events.some((event) => event.event === name), 20_000);
    const found = events.find((event) => event.event === name);
    if (!found) throw new Error(`the stream ended without ${name}: ${JSON.stringify(events)}`);
    return found;
  };
  return { events, done, until };
}

describe('approving App tool calls (e2e, server-everything)', () => {
  let api: TestApi;
  let admin: Http;
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

  /** An Agent with the reference server as its App: the ids and the echo tool's name. */
  const agentWithApp = async (http: Http = admin) => {
    const { agentId, spaceId } = await agentInNewSpace(http, {
      knowledgeEnabled: false,
      memoryEnabled: false,
    });
    const app = await admin.post<{ id: string }>(`${CORE}/apps`, {
      name: uniqueName('Everything'),
      source: { type: 'mcp', url: everything.url },
      enablement: { kind: 'agents', agentIds: [agentId] },
    });
    expect(app.status).toBe(201);
    return { agentId, spaceId, appId: app.body.id, echo: `${app.body.id}__echo` };
  };

  /** A key of a new member of the Space (not a manager), granted the Agent. */
  const memberOf = async (spaceId: string, agentId: string, label: string): Promise<Http> => {
    const email = `${label}-${Date.now()}@example.com`;
    const joined = await admin.post(`${CORE}/spaces/${spaceId}/members`, {
      userId: await registeredPerson(api.url, email),
      role: 'member',
    });
    expect(joined.status).toBe(201);
    const key = await admin.post<{ key: string }>(`${CORE}/api-keys`, {
      name: uniqueName(label),
      owner: { email },
      agents: [agentId],
    });
    expect(key.status).toBe(201);
    return client(api.url, key.body.key);
  };

  const eventsOf = (conversationId: string) => {
    const db = new DatabaseSync(join(api.config.dataDir, 'events.db'), { readOnly: true });
    try {
      return (
        db
          .prepare('SELECT type, data, metadata FROM events WHERE stream_id = ? ORDER BY position')
          .all(`conversation-${conversationId}`) as { type: string; data: string; metadata: string }[]
      ).map((row) => ({ type: row.type, data: JSON.parse(row.data) as Json }));
    } finally {
      db.close();
    }
  };

  it("lists an Agent's App tools with their defaults; its managers change them, a member reads them only", async () => {
    const { agentId, spaceId, echo } = await agentWithApp();
    const listed = await admin.get<{ data: AgentToolBody[] }>(`${CORE}/agents/${agentId}/tools`);
    expect(listed.status).toBe(200);
    expect(listed.body.data.find((tool) => tool.name === echo)).toMatchObject({
      tool: 'echo',
      destructive: false,
      enabled: true,
      approval: 'auto',
    });
    for (const tool of listed.body.data) expect(tool.approval).toBe(tool.destructive ? 'ask' : 'auto');

    const changed = await admin.patch<AgentToolBody>(`${CORE}/agents/${agentId}/tools/${echo}`, {
      approval: 'ask',
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ name: echo, enabled: true, approval: 'ask' });
    expect(
      (await admin.patch(`${CORE}/agents/${agentId}/tools/${echo}`, { approval: 'sometimes' })).status,
    ).toBe(400);
    const unknown = await admin.patch<{ error: { code: string } }>(
      `${CORE}/agents/${agentId}/tools/app_none__echo`,
      { enabled: false },
    );
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('agent_tool_not_found');

    const member = await memberOf(spaceId, agentId, 'tools-member');
    const read = await member.get<{ data: AgentToolBody[] }>(`${CORE}/agents/${agentId}/tools`);
    expect(read.status).toBe(200);
    expect(read.body.data.find((tool) => tool.name === echo)?.approval).toBe('ask');
    const refused = await member.patch<{ error: { code: string } }>(
      `${CORE}/agents/${agentId}/tools/${echo}`,
      {
        approval: 'auto',
      },
    );
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('space_change_denied');
  });

  it('pauses a streamed turn at an `ask` tool; the person approves and the call is made, recorded as events', async () => {
    const { agentId, spaceId, echo } = await agentWithApp();
    expect((await admin.patch(`${CORE}/agents/${agentId}/tools/${echo}`, { approval: 'ask' })).status).toBe(
      200,
    );
    const stream = openStream(api.url, ADMIN_KEY, agentId, { message: `call ${echo} {"message":"hi"}` });
    const asked = await stream.until('tool_approval_required');
    expect(asked.data).toMatchObject({ name: echo, arguments: '{"message":"hi"}' });
    const callId = String(asked.data.callId);
    const conversationId = String((await stream.until('conversation')).data.conversationId);
    const decide = `${LLM}/${agentId}/conversation/${conversationId}/tool-calls/${callId}`;

    // Someone else who uses the Agent: the conversation, and so the call, is not theirs.
    const otherMember = await memberOf(spaceId, agentId, 'tools-other');
    const other = await otherMember.post(decide, { decision: 'approve' });
    expect(other.status).toBe(404);
    expect((await admin.post(decide, { decision: 'maybe' })).status).toBe(400);
    expect((await admin.post(`${decide}x`, { decision: 'approve' })).status).toBe(404);

    const approved = await admin.post<{ decision: string }>(decide, { decision: 'approve' });
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ callId, decision: 'approved' });
    await stream.done;
    const done = stream.events.find((event) => event.event === 'done')!;
    expect((done.data.message as { content: string }).content).toContain('Echo: hi');
    expect((await admin.post(decide, { decision: 'deny' })).status).toBe(404);

    const calls = eventsOf(conversationId).filter((event) => event.type.startsWith('ToolCall'));
    expect(calls.map((event) => event.type)).toEqual([
      'ToolCallRequested',
      'ToolCallApproved',
      'ToolCallCompleted',
    ]);
    expect(calls[0]!.data).toMatchObject({ callId, name: echo, approval: 'ask' });
    expect(String(calls[0]!.data.arguments)).toMatch(/^sealed:v1:/);
    expect(String(calls[2]!.data.result)).toMatch(/^sealed:v1:/);
    expect(JSON.stringify(calls)).not.toContain('Echo: hi');
    // The answer's provenance names the call by the id of its events.
    const answerId = String((done.data.message as { id: string }).id);
    const provenance = await admin.get<{ toolCalls: { callId?: string; name: string }[] }>(
      `${LLM}/${agentId}/conversation/${conversationId}/messages/${answerId}/provenance`,
    );
    expect(provenance.body.toolCalls).toEqual([expect.objectContaining({ callId, name: echo, ok: true })]);

    // The audit trail shows who approved the call.
    await waitUntil(async () => {
      const trail = await admin.get<{ data: { eventType: string; actor: { userId?: string | null } }[] }>(
        `${CORE}/audit?resourceId=${conversationId}&limit=100`,
      );
      return trail.body.data.some((entry) => entry.eventType === 'ToolCallApproved');
    }, 10_000);
  });

  it('tells the model a denied call was refused, and answers a non-streamed turn with the calls that wait', async () => {
    const { agentId, echo } = await agentWithApp();
    expect((await admin.patch(`${CORE}/agents/${agentId}/tools/${echo}`, { approval: 'ask' })).status).toBe(
      200,
    );
    const stream = openStream(api.url, ADMIN_KEY, agentId, { message: `call ${echo} {"message":"hi"}` });
    const asked = await stream.until('tool_approval_required');
    const conversationId = String((await stream.until('conversation')).data.conversationId);
    const denied = await admin.post(
      `${LLM}/${agentId}/conversation/${conversationId}/tool-calls/${String(asked.data.callId)}`,
      { decision: 'deny' },
    );
    expect(denied.status).toBe(200);
    await stream.done;
    const content = (
      stream.events.find((event) => event.event === 'done')!.data.message as { content: string }
    ).content;
    expect(content).toMatch(/refused/);
    expect(content).not.toContain('Echo: hi');
    expect(
      eventsOf(conversationId)
        .filter((event) => event.type.startsWith('ToolCall'))
        .map((event) => [event.type, event.data.reason]),
    ).toEqual([
      ['ToolCallRequested', undefined],
      ['ToolCallDenied', 'denied'],
    ]);

    const paused = await sendTurn(admin, agentId, { message: `call ${echo} {"message":"later"}` });
    expect(paused.status).toBe(202);
    const waiting = paused.body as unknown as {
      status: string;
      conversationId: string;
      pendingToolCalls: { callId: string; name: string; arguments: string }[];
    };
    expect(waiting).toMatchObject({ status: 'awaiting_approval', pendingToolCalls: [{ name: echo }] });
    const answered = await admin.post<{ turn: { status: string; message: { content: string } } }>(
      `${LLM}/${agentId}/conversation/${waiting.conversationId}/tool-calls/${waiting.pendingToolCalls[0]!.callId}`,
      { decision: 'approve' },
    );
    expect(answered.status).toBe(200);
    expect(answered.body.turn.status).toBe('answered');
    expect(answered.body.turn.message.content).toContain('Echo: later');
  });

  it('lists the calls waiting for the person (a reloaded chat asks again); a stopped turn records them stopped', async () => {
    const { agentId, spaceId, echo } = await agentWithApp();
    expect((await admin.patch(`${CORE}/agents/${agentId}/tools/${echo}`, { approval: 'ask' })).status).toBe(
      200,
    );
    const stream = openStream(api.url, ADMIN_KEY, agentId, {
      message: `call ${echo} {"message":"wait"}`,
      continueOnDisconnect: true,
    });
    const asked = await stream.until('tool_approval_required');
    const conversationId = String((await stream.until('conversation')).data.conversationId);
    const route = `${LLM}/${agentId}/conversation/${conversationId}`;
    const waiting = await admin.get<{ data: Json[] }>(`${route}/tool-calls`);
    expect(waiting.status).toBe(200);
    expect(waiting.body.data).toEqual([
      expect.objectContaining({
        callId: asked.data.callId,
        name: echo,
        arguments: '{"message":"wait"}',
        since: expect.any(String),
        expiresAt: expect.any(String),
      }),
    ]);
    const otherMember = await memberOf(spaceId, agentId, 'tools-waiting');
    expect((await otherMember.get(`${route}/tool-calls`)).status).toBe(404);

    expect((await admin.post(`${route}/stop`, {})).status).toBeLessThan(300);
    await stream.done;
    await waitUntil(() => eventsOf(conversationId).some((event) => event.type === 'ToolCallDenied'), 10_000);
    expect(
      eventsOf(conversationId)
        .filter((event) => event.type.startsWith('ToolCall'))
        .map((event) => [event.type, event.data.reason, event.data.userId]),
    ).toEqual([
      ['ToolCallRequested', undefined, undefined],
      ['ToolCallDenied', 'stopped', null],
    ]);
    expect((await admin.get<{ data: Json[] }>(`${route}/tool-calls`)).body.data).toEqual([]);
  });

  it('offers no tool that is switched off or set to never', async () => {
    const { agentId, appId, echo } = await agentWithApp();
    expect((await admin.patch(`${CORE}/agents/${agentId}/tools/${echo}`, { enabled: false })).status).toBe(
      200,
    );
    const off = await sendTurn(admin, agentId, { message: `call ${echo} {"message":"hi"}` });
    expect(off.status).toBe(201);
    expect(off.body.message.content).not.toContain('Echo: hi');

    const sum = `${appId}__get-sum`;
    const summed = await sendTurn(admin, agentId, { message: `call ${sum} {"a":20,"b":22}` });
    expect(summed.body.message.content).toContain('The sum of 20 and 22 is 42.');
    expect((await admin.patch(`${CORE}/agents/${agentId}/tools/${sum}`, { approval: 'never' })).status).toBe(
      200,
    );
    const never = await sendTurn(admin, agentId, { message: `call ${sum} {"a":20,"b":22}` });
    expect(never.status).toBe(201);
    expect(never.body.message.content).not.toContain('The sum of');
  });

  it("erases a call's arguments and result with the answer: its key is destroyed", async () => {
    const { agentId, echo } = await agentWithApp();
    const secret = `echo-secret-${Date.now()}`;
    const turn = await sendTurn(admin, agentId, { message: `call ${echo} {"message":"${secret}"}` });
    expect(turn.status).toBe(201);
    const { conversationId } = turn.body;
    const calls = eventsOf(conversationId).filter((event) => event.type.startsWith('ToolCall'));
    expect(calls.map((event) => event.type)).toEqual(['ToolCallRequested', 'ToolCallCompleted']);
    const cipher = api.app.get(ContentCipher);
    const sealedArguments = String(calls[0]!.data.arguments);
    const sealedResult = String(calls[1]!.data.result);
    expect(JSON.stringify(calls)).not.toContain(secret);
    expect(await cipher.open(sealedArguments)).toContain(secret);
    expect(await cipher.open(sealedResult)).toContain(`Echo: ${secret}`);

    const deleted = await admin.delete(
      `${LLM}/${agentId}/conversation/${conversationId}/messages/${turn.body.message.id}`,
    );
    expect(deleted.status).toBeLessThan(300);
    expect(await cipher.open(sealedArguments)).toBeNull();
    expect(await cipher.open(sealedResult)).toBeNull();

    // Deleting the conversation erases the calls of every answer in it.
    const again = await sendTurn(admin, agentId, {
      conversationId,
      message: `call ${echo} {"message":"${secret}-2"}`,
    });
    expect(again.status).toBe(200);
    const second = eventsOf(conversationId).filter((event) => event.type === 'ToolCallCompleted')[1]!;
    expect(await cipher.open(String(second.data.result))).toContain(`${secret}-2`);
    expect((await admin.delete(`${LLM}/${agentId}/conversation/${conversationId}`)).status).toBeLessThan(300);
    expect(await cipher.open(String(second.data.result))).toBeNull();
  });
});

describe('an approval nobody gives (e2e)', () => {
  let api: TestApi;
  let everything: EverythingServer;

  beforeAll(async () => {
    everything = await startEverythingServer();
    api = await startTestApi({ TOOL_APPROVAL_TIMEOUT_SECONDS: '1' });
  });
  afterAll(async () => {
    await api?.close();
    await everything?.stop();
  });

  it('expires as denied after TOOL_APPROVAL_TIMEOUT_SECONDS', async () => {
    const admin = client(api.url);
    const { agentId } = await agentInNewSpace(admin, { knowledgeEnabled: false, memoryEnabled: false });
    const app = await admin.post<{ id: string }>(`${CORE}/apps`, {
      name: 'Everything',
      source: { type: 'mcp', url: everything.url },
      enablement: { kind: 'agents', agentIds: [agentId] },
    });
    const echo = `${app.body.id}__echo`;
    expect((await admin.patch(`${CORE}/agents/${agentId}/tools/${echo}`, { approval: 'ask' })).status).toBe(
      200,
    );
    const stream = openStream(api.url, ADMIN_KEY, agentId, { message: `call ${echo} {"message":"hi"}` });
    await stream.until('tool_approval_required');
    await stream.done;
    const content = (
      stream.events.find((event) => event.event === 'done')!.data.message as { content: string }
    ).content;
    expect(content).toMatch(/refused/);
    expect(content).not.toContain('Echo: hi');
    const conversationId = String(
      stream.events.find((event) => event.event === 'conversation')!.data.conversationId,
    );
    const db = new DatabaseSync(join(api.config.dataDir, 'events.db'), { readOnly: true });
    try {
      const denied = db
        .prepare("SELECT data FROM events WHERE stream_id = ? AND type = 'ToolCallDenied'")
        .all(`conversation-${conversationId}`) as { data: string }[];
      expect(denied.map((row) => JSON.parse(row.data) as Json)).toEqual([
        expect.objectContaining({ reason: 'expired', userId: null }),
      ]);
    } finally {
      db.close();
    }
  });
});
