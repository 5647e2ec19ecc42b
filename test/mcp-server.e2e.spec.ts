// The platform as an MCP server over real HTTP, driven by the MCP project's own client (the SDK's Client over
// streamable HTTP) as Claude Code or Codex CLI would: a user's key lists the Agents it may use, asks one (a real turn
// with citations, continued by its conversationId), searches its Knowledge and reads its documents as resources;
// another person's key reaches none of it; no key, a foreign Host header or a GET are refused as the protocol says.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { waitUntil } from '#testing/fixtures';
import { client, CORE, startTestApi, uniqueName, type TestApi } from './support/api.js';
import { LLM, newAgent, newSpace } from './support/scenario.js';
import { VOLCANOES } from './support/documents.js';

interface TextResult {
  content: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

describe('the platform as an MCP server (e2e)', () => {
  let api: TestApi;
  let agentId: string;
  let memberKey: string;
  let strangerKey: string;
  const connected: Client[] = [];

  const connect = async (key: string) => {
    const mcp = new Client({ name: 'e2e', version: '1.0.0' });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(`${api.url}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${key}` } },
      }),
    );
    connected.push(mcp);
    return mcp;
  };
  const call = async (mcp: Client, name: string, args: Record<string, unknown> = {}) =>
    (await mcp.callTool({ name, arguments: args })) as TextResult;
  const textOf = (result: TextResult) => result.content.map((part) => part.text ?? '').join('\n');

  beforeAll(async () => {
    api = await startTestApi();
    const admin = client(api.url);
    const spaceId = await newSpace(admin, uniqueName('MCP'));
    agentId = await newAgent(admin, spaceId, { name: uniqueName('Geologist') });
    const added = await admin.post<{ id: string }>(`${CORE}/knowledge/${agentId}/documents`, {
      name: 'volcanoes.md',
      text: VOLCANOES,
      scope: 'space',
    });
    expect(added.status).toBe(201);
    await waitUntil(
      async () =>
        (await admin.get(`${CORE}/knowledge/${agentId}/documents/${added.body.id}`)).body.status === 'Ready',
      30_000,
    );
    const issue = async (email: string, member: boolean) => {
      const person = await admin.post<{ ownerUserId: string }>(`${CORE}/api-keys`, {
        name: uniqueName('registers'),
        owner: { email },
        agents: [],
      });
      if (member)
        expect(
          (
            await admin.post(`${CORE}/spaces/${spaceId}/members`, {
              userId: person.body.ownerUserId,
              role: 'member',
            })
          ).status,
        ).toBe(201);
      const key = await admin.post<{ key: string }>(`${CORE}/api-keys`, {
        name: uniqueName('mcp'),
        owner: { email },
        agents: 'all',
      });
      expect(key.status).toBe(201);
      return key.body.key;
    };
    memberKey = await issue(`mcp-member-${Date.now()}@example.com`, true);
    strangerKey = await issue(`mcp-stranger-${Date.now()}@example.com`, false);
  }, 60_000);
  afterAll(async () => {
    for (const mcp of connected) await mcp.close().catch(() => undefined);
    await api.close();
    expect(api.logs()).not.toContain('unhandled error');
  });

  it('serves its tools and resources to a member: list, ask (cited, continued), search, read', async () => {
    const mcp = await connect(memberKey);
    expect(mcp.getServerVersion()).toMatchObject({ name: 'agent-platform' });
    const tools = await mcp.listTools();
    expect(tools.tools.map((tool) => tool.name).sort()).toEqual([
      'ask_agent',
      'list_agents',
      'search_knowledge',
    ]);
    expect(tools.tools.find((tool) => tool.name === 'ask_agent')!.inputSchema.required).toEqual([
      'agentId',
      'message',
    ]);

    const agents = await call(mcp, 'list_agents');
    expect(agents.structuredContent!.agents).toEqual(
      expect.arrayContaining([expect.objectContaining({ id: agentId })]),
    );

    const found = await call(mcp, 'search_knowledge', { agentId, query: 'Etna Sicily', topK: 3 });
    expect(found.isError).toBeFalsy();
    expect(textOf(found)).toContain('Etna');

    const asked = await call(mcp, 'ask_agent', { agentId, message: 'Which volcano is in Sicily?' });
    expect(asked.isError).toBeFalsy();
    expect(textOf(asked)).toMatch(/\[1\]/);
    expect(textOf(asked)).toContain('Sources:\n[1] volcanoes.md');
    const { conversationId } = asked.structuredContent as { conversationId: string };
    const again = await call(mcp, 'ask_agent', { agentId, conversationId, message: 'And Vesuvius?' });
    expect(again.structuredContent).toMatchObject({ conversationId });
    // A real conversation of the key's person, as the REST API lists it.
    const messages = await client(api.url, memberKey).get<{ data: unknown[] }>(
      `${LLM}/${agentId}/conversation/${conversationId}/messages`,
    );
    expect(messages.body.data).toHaveLength(4);

    const resources = await mcp.listResources();
    const volcanoes = resources.resources.find((resource) => resource.name === 'volcanoes.md');
    expect(volcanoes?.uri).toMatch(new RegExp(`^agent-platform://agents/${agentId}/documents/`));
    const read = await mcp.readResource({ uri: volcanoes!.uri });
    expect((read.contents[0] as { text: string }).text).toContain('Etna');
  });

  it("reaches nothing of an Agent its key's person may not use", async () => {
    const mcp = await connect(strangerKey);
    const agents = await call(mcp, 'list_agents');
    expect(agents.structuredContent!.agents).not.toEqual(
      expect.arrayContaining([expect.objectContaining({ id: agentId })]),
    );
    for (const [tool, args] of [
      ['ask_agent', { agentId, message: 'What do you know?' }],
      ['search_knowledge', { agentId, query: 'Etna' }],
    ] as const) {
      const refused = await call(mcp, tool, args);
      expect({ tool, isError: refused.isError }).toEqual({ tool, isError: true });
      expect(textOf(refused)).not.toContain('Etna');
    }
    expect((await mcp.listResources()).resources).toEqual([]);
    const invalid = await call(mcp, 'ask_agent', { agentId });
    expect(invalid.isError).toBe(true);
  });

  it('refuses no key, a foreign Host header and a stream it does not keep', async () => {
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    };
    const post = (headers: Record<string, string>) =>
      fetch(`${api.url}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
        body: JSON.stringify(initialize),
      });
    const anonymous = await post({});
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ error: { code: 'missing_api_key' } });
    const ok = await post({ authorization: `Bearer ${memberKey}` });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ result: { serverInfo: { name: 'agent-platform' } } });
    const origin = await post({ authorization: `Bearer ${memberKey}`, origin: 'https://evil.example' });
    expect(origin.status).toBe(403);
    const stream = await fetch(`${api.url}/mcp`, {
      headers: { authorization: `Bearer ${memberKey}`, accept: 'text/event-stream' },
    });
    expect(stream.status).toBe(405);
  });
});
