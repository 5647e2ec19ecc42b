// Code execution in conversations end to end over HTTP: the offline model runs a fenced block with run_code in the
// conversation's bubblewrap sandbox; files persist between turns; the Agent's Skills' files are under /skills and a
// new Skill rebuilds them; the sandbox's state is a route; deleting the conversation removes the sandbox.
import { existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { strToU8, zipSync } from 'fflate';
import { BubblewrapSandbox } from '#sandbox';
import { sandboxRoot } from '#code-execution';
import { EVENT_STORE, type EventStore } from '#event-store';
import { waitUntil } from '#testing/fixtures';
import { ADMIN_KEY, client, CORE, startTestApi, uniqueName, type TestApi } from './support/api.js';

type Json = Record<string, unknown>;
const LLM = `${CORE}/llm`;
const fenced = (language: string, code: string) => `Please run this:\n\`\`\`${language}\n${code}\n\`\`\``;

const bwrapWorks = await new BubblewrapSandbox({
  // A directory of its own: the probe makes its root 0711 (that would take /tmp's sticky, world-writable mode away).
  root: join(tmpdir(), 'code-execution-e2e-probe'),
  limits: {
    cpuSeconds: 1,
    memoryMb: 128,
    diskMb: 1,
    maxProcesses: 8,
    maxFileMb: 1,
    outputBytes: 1024,
    wallTimeoutMs: 1000,
    idleTimeoutMs: 1000,
  },
}).availability();
if (!bwrapWorks.available) console.log(`SKIP code execution e2e: ${bwrapWorks.reason}`);
const suite = bwrapWorks.available ? describe : describe.skip;

suite('code execution in conversations (e2e)', () => {
  let api: TestApi;
  let admin: ReturnType<typeof client>;
  let spaceId: string;

  beforeAll(async () => {
    api = await startTestApi({ SANDBOX_RUN_TIMEOUT_SECONDS: '10' });
    admin = client(api.url);
    spaceId = (await admin.post(`${CORE}/spaces`, { name: uniqueName('Code') })).body.id as string;
  });
  afterAll(async () => {
    await api.close();
    expect(api.logs()).not.toContain('unhandled error');
  });

  const agent = async (settings: Json) =>
    (
      await admin.post(`${CORE}/agents`, {
        spaceId,
        name: uniqueName('Coder'),
        knowledgeEnabled: false,
        ...settings,
      })
    ).body.id as string;
  const turn = (agentId: string, body: Json) =>
    admin.post<{ conversationId: string; message: { id: string; content: string } }>(
      `${LLM}/${agentId}/conversation`,
      body,
    );

  it('runs code in a sandbox kept for the conversation, with the Skills files, and shows its state', async () => {
    const agentId = await agent({ codeExecutionEnabled: true });
    const first = await turn(agentId, {
      message: fenced('python', "open('notes.txt', 'w').write('hello from turn one')\nprint('wrote it')"),
    });
    expect(first.status).toBe(201);
    expect(first.body.message.content).toContain('after running the code: exit 0; output: wrote it');
    expect(first.body.message.content).toContain('Files: notes.txt');
    const { conversationId } = first.body;

    const second = await turn(agentId, {
      conversationId,
      message: fenced('sh', 'cat notes.txt; echo; head -1 /skills/draft-email/tone-guide.md'),
    });
    expect(second.status).toBe(200);
    expect(second.body.message.content).toContain('hello from turn one');
    expect(second.body.message.content).toContain('# Tone guide');

    const provenance = await admin.get<{ toolCalls: { name: string }[] }>(
      `${LLM}/${agentId}/conversation/${conversationId}/messages/${second.body.message.id}/provenance`,
    );
    expect(provenance.body.toolCalls.map((call) => call.name)).toEqual(['run_code']);
    const sandbox = await admin.get<{ state: string; calls: Json[]; skills: { name: string }[] }>(
      `${LLM}/${agentId}/conversation/${conversationId}/sandbox`,
    );
    expect(sandbox.status).toBe(200);
    expect(sandbox.body.state).toBe('active');
    expect(sandbox.body.skills.map((skill) => skill.name)).toContain('draft-email');
    expect(sandbox.body.calls).toHaveLength(2);
    expect(sandbox.body.calls[0]).toMatchObject({ language: 'python', exitCode: 0, timedOut: false });
    expect(String(sandbox.body.calls[1]!.code)).toContain('cat notes.txt');
    // The file the first run produced is kept and downloadable.
    const file = await fetch(
      `${api.url}${LLM}/${agentId}/conversation/${conversationId}/sandbox/files?path=notes.txt`,
      { headers: { 'x-api-key': ADMIN_KEY } },
    );
    expect(file.status).toBe(200);
    expect(await file.text()).toBe('hello from turn one');
    const health = await fetch(`${api.url}/health`);
    expect(((await health.json()) as { codeExecution: { available: boolean } }).codeExecution.available).toBe(
      true,
    );

    // Another user never sees it.
    const other = await admin.post<{ key: string }>(`${CORE}/api-keys`, {
      name: uniqueName('other'),
      owner: { email: `${uniqueName('o').replace(/\s/g, '')}@example.com` },
    });
    const stranger = client(api.url, other.body.key);
    expect((await stranger.get(`${LLM}/${agentId}/conversation/${conversationId}/sandbox`)).status).toBe(404);
  });

  it('rebuilds the sandbox when a Skill is added, and the event history says why', async () => {
    const agentId = await agent({ codeExecutionEnabled: true });
    const first = await turn(agentId, { message: fenced('sh', 'ls /skills') });
    expect(first.status).toBe(201);
    const { conversationId } = first.body;

    const bundle = zipSync({
      'SKILL.md': strToU8('---\nname: unit-converter\ndescription: Convert units.\n---\nUse factors.csv.\n'),
      'factors.csv': strToU8('from,to,factor\nkm,mi,0.621\n'),
    });
    const form = new FormData();
    form.append('file', new Blob([Buffer.from(bundle)], { type: 'application/zip' }), 'unit.zip');
    form.append('spaceId', spaceId);
    form.append('publish', 'true');
    const upload = await fetch(`${api.url}${CORE}/skills/upload`, {
      method: 'POST',
      headers: { 'x-api-key': ADMIN_KEY },
      body: form,
    });
    expect(upload.status).toBe(201);

    const store = api.app.get<EventStore>(EVENT_STORE);
    await waitUntil(
      async () =>
        (await store.readStream(`conversation-sandbox-${conversationId}`)).some(
          (event) => event.type === 'SandboxSkillsReplaced',
        ),
      15_000,
    );
    const replaced = (await store.readStream(`conversation-sandbox-${conversationId}`)).find(
      (event) => event.type === 'SandboxSkillsReplaced',
    )!;
    expect(replaced.metadata.causationId).not.toBeNull();
    const second = await turn(agentId, {
      conversationId,
      message: fenced('sh', 'cat /skills/unit-converter/factors.csv'),
    });
    expect(second.body.message.content).toContain('km,mi,0.621');
  });

  it('offers no run_code to an Agent without code execution', async () => {
    const agentId = await agent({});
    const reply = await turn(agentId, { message: fenced('sh', 'echo should-not-run') });
    expect(reply.status).toBe(201);
    expect(reply.body.message.content).not.toContain('after running the code');
  });

  it('removes the sandbox and its files with the conversation', async () => {
    const agentId = await agent({ codeExecutionEnabled: true });
    const first = await turn(agentId, { message: fenced('sh', 'echo data > kept.txt') });
    const { conversationId } = first.body;
    const root = sandboxRoot(api.config.dataDir);
    expect(readdirSync(root).some((name) => name.includes(conversationId))).toBe(true);
    expect((await admin.delete(`${LLM}/${agentId}/conversation/${conversationId}`)).status).toBe(204);
    await waitUntil(async () => !readdirSync(root).some((name) => name.includes(conversationId)), 15_000);
    expect(existsSync(join(root, `sbx-${conversationId}`))).toBe(false);
  });
});
