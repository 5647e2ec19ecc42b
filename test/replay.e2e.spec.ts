// Regression replay (issue 25 §4): 10 recorded turns (offline-chat, grounded in a document, recalling a memory, some
// continuing their conversation) replayed with `cli replay` against a second model behind a fake upstream: the report
// (JSON and Markdown) has each turn's old and new answers, citations kept and lost, token and cost differences; the
// model saw the prompt as recorded (system prompt, the recorded passages' text, the recalled memory's text, the history
// before the question); a model asking for search_knowledge gets the live turn's tool loop; a memory deleted since is
// named as erased, not re-sent; the conversations are unchanged (same stream revisions); every model call (chat and
// the searches' embeddings) is recorded under the `replay` operation; re-retrieved passages carry their document's
// version.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EVENT_STORE, type EventStore } from '#event-store';
import type { ReplayReport } from '#audit';
import { startFakeUpstream, type FakeUpstream } from '#testing/fake-openai-upstream';
import { waitUntil } from '#testing/fixtures';
import { capturedOutput } from '../apps/cli/src/output.js';
import { client, CORE, startTestApi, uniqueName, writeModelsFile, type TestApi } from './support/api.js';
import { agentInNewSpace, LLM } from './support/scenario.js';
import { VOLCANOES } from './support/documents.js';
import { recordedCalls } from './support/usage-events.js';

const K = `${CORE}/knowledge`;
type Turn = {
  conversationId: string;
  message: { id: string; citations: { documentId: string; start: number; end: number }[] };
};

async function runCli(api: TestApi, ...args: string[]) {
  const { CommandFactory, CommandRunnerService } = await import('nest-commander');
  const { CliModule } = await import('../apps/cli/src/cli.module.js');
  const output = capturedOutput();
  const errors: string[] = [];
  const app = await CommandFactory.createWithoutRunning(CliModule.forRoot({ config: api.config, output }), {
    logger: false,
    serviceErrorHandler: (error: Error) => void errors.push(error.message),
  });
  try {
    await app.get(CommandRunnerService).run(['node', 'cli', ...args]);
  } finally {
    await app.close();
  }
  return { lines: output.lines, errors };
}

describe('regression replay (e2e)', () => {
  let api: TestApi;
  let upstream: FakeUpstream;
  let admin: ReturnType<typeof client>;

  beforeAll(async () => {
    upstream = await startFakeUpstream({ reply: 'From the sources [1].' });
    api = await startTestApi({
      MODELS_FILE: writeModelsFile([
        'providers:',
        `  fake: { baseUrl: '${upstream.url}' }`,
        'models:',
        '  - { key: second-chat, modelId: fake-model, provider: fake, kind: chat, contextWindow: 64000, pricing: { input: 1, output: 2 } }',
      ]),
    });
    admin = client(api.url);
  }, 60_000);
  afterAll(async () => {
    await api.close();
    await upstream.close();
    expect(api.logs()).not.toContain('unhandled error');
  });

  it('replays 10 recorded turns against a second model, writes the report, leaves the conversations unchanged', async () => {
    const { agentId } = await agentInNewSpace(
      admin,
      {
        name: uniqueName('Librarian'),
        model: 'offline-chat',
        systemPrompt: 'You answer questions about volcanoes.',
      },
      uniqueName('Replay'),
    );
    const added = await admin.post<{ id: string }>(`${K}/${agentId}/documents`, {
      name: 'volcanoes.md',
      text: VOLCANOES,
    });
    expect(added.status).toBe(201);
    await waitUntil(
      async () =>
        (await admin.get<{ status: string }>(`${K}/${agentId}/documents/${added.body.id}`)).body.status ===
        'Ready',
      30_000,
    );

    // A memory the turns recall: re-sent by the replay as recorded.
    const memory = await admin.post<{ id: string }>(`${CORE}/memory/${agentId}/memories`, {
      text: 'The user studies volcanology in Catania.',
      bucket: 'personal',
    });
    expect(memory.status).toBe(201);

    // A Skill the Agent has at the recorded time: a replay offers it (manifest and load_skill) as it was then.
    const skill = await admin.post<{ id: string }>(`${CORE}/skills`, {
      agentId,
      name: 'eruption-dates',
      description: 'Dates volcanic eruptions',
      instructions: 'Give the eruption year first.',
      publish: true,
    });
    expect(skill.status).toBe(201);

    const questions = [
      'Which volcano is in Sicily?',
      'Which volcano is the tallest in Europe?',
      'What did Vesuvius bury?',
      'Where does Vesuvius stand?',
      'When did Vesuvius erupt?',
      'Is Etna active?',
      'Which coast of Sicily has Etna?',
      'Which bay is near Vesuvius?',
      'What kind of volcano is Etna?',
      'Which region holds Vesuvius?',
    ];
    const turns: Turn[] = [];
    let conversationId: string | undefined;
    for (const [i, message] of questions.entries()) {
      // Three conversations: turns continue the current one, a new one starts every fourth question.
      const body = i % 4 === 0 || !conversationId ? { message } : { message, conversationId };
      const turn = await admin.post<Turn>(`${LLM}/${agentId}/conversation`, body);
      expect([200, 201]).toContain(turn.status);
      conversationId = turn.body.conversationId;
      turns.push(turn.body);
    }
    expect(turns.some((turn) => turn.message.citations.length > 0)).toBe(true);
    const store = api.app.get<EventStore>(EVENT_STORE);
    const conversationIds = [...new Set(turns.map((turn) => turn.conversationId))];
    expect(conversationIds).toHaveLength(3);
    const revisions = async () =>
      Promise.all(conversationIds.map((id) => store.streamRevision(`conversation-${id}`)));
    const before = await revisions();
    upstream.reset();

    const out = join(mkdtempSync(join(tmpdir(), 'replay-')), 'report');
    /** Replays one recorded turn with the second model, which calls `tool` once and then answers; its report. */
    const replayWithTool = async (
      tool: string,
      args: Record<string, string>,
      messageId: string,
      suffix: string,
    ): Promise<ReplayReport> => {
      upstream.reset();
      upstream.set({
        toolCall: (request) =>
          (request.body as { messages: { role: string }[] }).messages.some((m) => m.role === 'tool')
            ? undefined
            : { name: tool, arguments: args },
      });
      const replayed = await runCli(
        api,
        'replay',
        '--model',
        'second-chat',
        '--messages',
        messageId,
        '--out',
        `${out}-${suffix}`,
      );
      expect(replayed.errors).toEqual([]);
      return JSON.parse(readFileSync(`${out}-${suffix}.json`, 'utf8')) as ReplayReport;
    };
    const run = await runCli(api, 'replay', '--model', 'second-chat', '--agent', agentId, '--out', out);
    expect(run.errors).toEqual([]);
    expect(run.lines.join('\n')).toContain('replayed 10 of 10 turns against second-chat');

    // The report: each turn, old vs new, citations kept or lost, tokens and cost.
    const report = JSON.parse(readFileSync(`${out}.json`, 'utf8')) as ReplayReport;
    expect(report.turns.map((turn) => turn.messageId)).toEqual(turns.map((turn) => turn.message.id));
    for (const [i, turn] of report.turns.entries()) {
      expect(turn.error).toBeNull();
      expect(turn.question).toBe(questions[i]);
      expect(turn.old.model).toBe('offline-chat');
      expect(turn.new).toMatchObject({ model: 'second-chat', content: 'From the sources [1].' });
      expect(turn.promptVerified).toBe(true);
      expect(turn.passagesMissing).toBe(0);
      const recorded = turns[i]!.message.citations;
      expect(turn.old.citations.map((c) => [c.documentId, c.start, c.end])).toEqual(
        recorded.map((c) => [c.documentId, c.start, c.end]),
      );
      // [1] cites the first recorded passage: every old citation of it is kept, the others lost.
      expect(turn.citationsKept.length + turn.citationsLost.length).toBe(recorded.length);
      expect(turn.tokenDifference).toBe(
        turn.new!.inputTokens + turn.new!.outputTokens - turn.old.inputTokens - turn.old.outputTokens,
      );
      expect(turn.new!.costUsd).toBeGreaterThan(0);
    }
    expect(report.totals).toMatchObject({ turns: 10, replayed: 10 });
    expect(report.totals.citationsKept).toBeGreaterThan(0);
    const markdown = readFileSync(`${out}.md`, 'utf8');
    expect(markdown).toContain('# Replay against second-chat');
    expect(markdown).toContain('**Old answer** (offline-chat)');
    expect(markdown).toContain('**New answer** (second-chat)');

    // The second model saw the prompt as recorded: the system prompt, the passages' text, the earlier turns.
    const chats = upstream.requests.filter((request) => request.path === '/v1/chat/completions');
    expect(chats).toHaveLength(10);
    const messagesOf = (i: number) =>
      (chats[i]!.body as { messages: { role: string; content: string }[] }).messages;
    expect(messagesOf(0)[0]).toEqual({ role: 'system', content: 'You answer questions about volcanoes.' });
    expect(
      messagesOf(0).some((m) => m.role === 'system' && m.content.includes('Mount Etna is an active')),
    ).toBe(true);
    expect(messagesOf(0).at(-1)).toEqual({ role: 'user', content: questions[0] });
    // The recalled memory, re-sent as recorded (its text at the version the turn recalled).
    expect(
      messagesOf(0).some((m) => m.role === 'system' && m.content.includes('studies volcanology in Catania')),
    ).toBe(true);
    for (const turn of report.turns) {
      expect(turn.contextItemsReplayed).toContain(`memory:${memory.body.id}@1`);
      expect(turn.contextItemsNotReplayed).toEqual([]);
    }
    expect(markdown).toContain(`Re-sent as recorded: memory:${memory.body.id}@1`);
    const second = messagesOf(1)
      .filter((m) => m.role === 'user')
      .map((m) => m.content);
    expect(second).toEqual([questions[0], questions[1]]);

    // Read-only: the conversations have the same revisions; the calls are usage under `replay`.
    expect(await revisions()).toEqual(before);
    const replays = recordedCalls(await store.readAll({ maxCount: 100_000 })).filter(
      (call) => call.operation === 'replay',
    );
    expect(replays).toHaveLength(10);
    expect(replays[0]).toMatchObject({ apiKeyId: 'system', agentId, model: 'second-chat' });

    // A list of message ids replays just those.
    const some = await runCli(
      api,
      'replay',
      '--model',
      'second-chat',
      '--messages',
      `${turns[2]!.message.id},${turns[7]!.message.id}`,
      '--out',
      `${out}-two`,
    );
    expect(some.errors).toEqual([]);
    const two = JSON.parse(readFileSync(`${out}-two.json`, 'utf8')) as ReplayReport;
    expect(two.turns.map((turn) => turn.messageId)).toEqual([turns[2]!.message.id, turns[7]!.message.id]);
    expect(await revisions()).toEqual(before);

    // Another retrieval configuration: the Knowledge searched again (BM25, two passages).
    const searched = await runCli(
      api,
      'replay',
      '--model',
      'second-chat',
      '--messages',
      turns[0]!.message.id,
      '--re-retrieve',
      '--retrieval-mode',
      'bm25',
      '--passages',
      '2',
      '--out',
      `${out}-bm25`,
    );
    expect(searched.errors).toEqual([]);
    const bm25 = JSON.parse(readFileSync(`${out}-bm25.json`, 'utf8')) as ReplayReport;
    expect(bm25).toMatchObject({
      retrieval: 're-retrieved',
      turns: [{ error: null, retrieval: 're-retrieved' }],
    });
    // A re-retrieved passage carries its document's real version (as a live turn's), like the recorded ones.
    const recordedVersions = new Set(
      report.turns.flatMap((turn) =>
        turn.old.citations.filter((c) => c.documentId === added.body.id).map((c) => c.documentVersion),
      ),
    );
    expect(recordedVersions.size).toBe(1);
    const [version] = [...recordedVersions];
    expect(version).toBeGreaterThan(0);
    expect(bm25.turns[0]!.new!.citations[0]).toMatchObject({
      documentId: added.body.id,
      documentVersion: version,
    });
    expect(await revisions()).toEqual(before);

    // The live turn's tool loop: the second model searches the Knowledge, then answers from what it found.
    const loop = await replayWithTool(
      'search_knowledge',
      { query: 'Pompeii eruption' },
      turns[1]!.message.id,
      'loop',
    );
    expect(loop.turns[0]!.new).toMatchObject({
      steps: 2,
      toolCalls: [{ name: 'search_knowledge', ok: true }],
      content: 'From the sources [1].',
    });
    const loopCalls = upstream.requests.filter((request) => request.path === '/v1/chat/completions');
    expect(loopCalls).toHaveLength(2);
    const toolResult = (
      loopCalls[1]!.body as { messages: { role: string; content: string }[] }
    ).messages.find((m) => m.role === 'tool');
    expect(toolResult?.content).toContain('Sources found by search_knowledge:');
    expect(toolResult?.content).toContain('Pompeii');
    upstream.set({ toolCall: undefined });

    // Every model call a replay made — the answers, the tool steps and the searches' embeddings — is usage under
    // `replay` (the searches are not ordinary embedding usage), and none is attributed to a conversation.
    const replayCalls = recordedCalls(await store.readAll({ maxCount: 100_000 })).filter((call) =>
      call.correlationId.startsWith('replay-'),
    );
    expect(replayCalls.some((call) => call.model !== 'second-chat')).toBe(true);
    expect(new Set(replayCalls.map((call) => call.operation))).toEqual(new Set(['replay']));
    expect(replayCalls.filter((call) => call.conversationId !== undefined)).toEqual([]);

    // The Skills offered as of the recorded time: version 2 published since, the replay loads version 1 (as the
    // live turn would have); run_code is never offered in a replay.
    const drafted = await admin.put(`${CORE}/skills/${skill.body.id}`, {
      instructions: 'Version two: give the eruption century.',
    });
    expect(drafted.status).toBe(200);
    expect((await admin.post(`${CORE}/skills/${skill.body.id}/publish`)).status).toBe(200);
    const withSkill = await replayWithTool(
      'load_skill',
      { name: 'eruption-dates' },
      turns[2]!.message.id,
      'skill',
    );
    expect(withSkill.turns[0]!.new).toMatchObject({
      steps: 2,
      toolCalls: [{ name: 'load_skill', ok: true }],
    });
    const skillCalls = upstream.requests.filter((request) => request.path === '/v1/chat/completions');
    const offered = (skillCalls[0]!.body as { tools?: { function: { name: string } }[] }).tools ?? [];
    expect(offered.map((tool) => tool.function.name)).toEqual(
      expect.arrayContaining(['search_knowledge', 'load_skill', 'read_skill_file']),
    );
    expect(offered.map((tool) => tool.function.name)).not.toContain('run_code');
    expect(
      (skillCalls[0]!.body as { messages: { role: string; content: string }[] }).messages.some(
        (m) => m.role === 'system' && m.content.includes('Dates volcanic eruptions'),
      ),
    ).toBe(true);
    const loadedSkill = (
      skillCalls[1]!.body as { messages: { role: string; content: string }[] }
    ).messages.find((m) => m.role === 'tool');
    expect(loadedSkill?.content).toContain('Give the eruption year first.');
    expect(loadedSkill?.content).not.toContain('Version two');
    upstream.set({ toolCall: undefined });

    // The memory deleted since (its key destroyed): named as erased, not re-sent.
    expect((await admin.delete(`${CORE}/memory/${agentId}/memories/${memory.body.id}`)).status).toBeLessThan(
      300,
    );
    upstream.reset();
    const erased = await runCli(
      api,
      'replay',
      '--model',
      'second-chat',
      '--messages',
      turns[0]!.message.id,
      '--out',
      `${out}-erased`,
    );
    expect(erased.errors).toEqual([]);
    const afterErasure = JSON.parse(readFileSync(`${out}-erased.json`, 'utf8')) as ReplayReport;
    expect(afterErasure.turns[0]!.contextItemsNotReplayed).toEqual([
      expect.stringMatching(new RegExp(`^memory:${memory.body.id}@1 \\(erased`)),
    ]);
    expect(JSON.stringify(upstream.requests.map((request) => request.body))).not.toContain(
      'studies volcanology in Catania',
    );
    expect(await revisions()).toEqual(before);

    // Bad input is a clear error.
    const unknown = await runCli(api, 'replay', '--model', 'no-such-model', '--agent', agentId, '--out', out);
    expect(unknown.errors.join('\n')).toContain('no-such-model');
  }, 180_000);
});
