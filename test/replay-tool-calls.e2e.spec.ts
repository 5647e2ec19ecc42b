// A replay of an answer that called an App's tool (the MCP project's reference server, server-everything) re-uses the
// recorded result: the App is gone when the replay runs, the second model (behind a fake upstream) calls the same
// tool with the same arguments and reads the result the original call recorded; a call with other arguments is told
// the replay does not call tools; the report marks which calls were answered from the recording, and lists the
// recorded answer's calls beside them.
import type { ReplayReport } from '#audit';
import {
  startFakeUpstream,
  type FakeUpstream,
  type FakeUpstreamRequest,
} from '#testing/fake-openai-upstream';
import { startEverythingServer, type EverythingServer } from '#testing/mcp-everything';
import { client, CORE, startTestApi, writeModelsFile, type TestApi } from './support/api.js';
import { agentInNewSpace, sendTurn } from './support/scenario.js';

type Message = { role: string; content?: string | null };
const messagesOf = (request: FakeUpstreamRequest) => (request.body as { messages: Message[] }).messages;

describe('replaying an answer that called an App tool (e2e)', () => {
  let api: TestApi;
  let upstream: FakeUpstream;
  let everything: EverythingServer;
  let echoArguments: Record<string, unknown> = { message: 'hi' };
  let toolName = '';

  beforeAll(async () => {
    everything = await startEverythingServer();
    upstream = await startFakeUpstream({
      reply: 'Replayed.',
      // The first step calls the echo tool; once a tool result is in the prompt, it answers.
      toolCall: (request) =>
        messagesOf(request).some((message) => message.role === 'tool')
          ? undefined
          : { name: toolName, arguments: echoArguments },
    });
    api = await startTestApi({
      MODELS_FILE: writeModelsFile([
        'providers:',
        `  fake: { baseUrl: '${upstream.url}' }`,
        'models:',
        '  - { key: second-chat, modelId: fake-model, provider: fake, kind: chat, contextWindow: 64000 }',
      ]),
    });
  }, 60_000);
  afterAll(async () => {
    await api?.close();
    await upstream?.close();
    await everything?.stop();
  });

  it('answers the replayed call with the recorded result, the App not called again; other arguments are refused', async () => {
    const admin = client(api.url);
    const { agentId } = await agentInNewSpace(admin, { knowledgeEnabled: false, memoryEnabled: false });
    const app = await admin.post<{ id: string }>(`${CORE}/apps`, {
      name: 'Everything',
      source: { type: 'mcp', url: everything.url },
      enablement: { kind: 'agents', agentIds: [agentId] },
    });
    expect(app.status).toBe(201);
    toolName = `${app.body.id}__echo`;
    const turn = await sendTurn(admin, agentId, { message: `call ${toolName} {"message":"hi"}` });
    expect(turn.status).toBe(201);
    expect(turn.body.message.content).toContain('Echo: hi');
    // The App is gone: a replay that called it would get an error, not the echo.
    await everything.stop();

    const replay = async () => {
      upstream.reset();
      const replayed = await admin.post<{ report: ReplayReport }>(`${CORE}/replays`, {
        model: 'second-chat',
        messageIds: [turn.body.message.id],
      });
      expect(replayed.status).toBe(200);
      return replayed.body.report.turns[0]!;
    };

    const same = await replay();
    expect(same.error).toBeNull();
    expect(same.old.toolCalls).toEqual([{ name: toolName, arguments: '{"message":"hi"}', ok: true }]);
    expect(same.new?.toolCalls).toEqual([
      { name: toolName, arguments: '{"message":"hi"}', ok: true, recorded: true },
    ]);
    expect(same.new?.content).toBe('Replayed.');
    const [first, second] = upstream.requests.filter((request) => request.path.endsWith('/chat/completions'));
    const offered = (first!.body as { tools?: { function: { name: string } }[] }).tools ?? [];
    expect(offered.map((tool) => tool.function.name)).toContain(toolName);
    expect(messagesOf(second!).find((message) => message.role === 'tool')?.content).toContain('Echo: hi');

    echoArguments = { message: 'something else' };
    const other = await replay();
    expect(other.new?.toolCalls).toEqual([
      { name: toolName, arguments: '{"message":"something else"}', ok: false, recorded: true },
    ]);
    const refused = upstream.requests.filter((request) => request.path.endsWith('/chat/completions'))[1]!;
    expect(messagesOf(refused).find((message) => message.role === 'tool')?.content).toMatch(
      /reuses recorded results only/,
    );
  }, 60_000);
});
