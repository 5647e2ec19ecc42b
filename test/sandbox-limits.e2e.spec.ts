// The sandbox's limits end to end over HTTP (issue 19, section 4): the files a run produces are kept within the caps
// per run and per conversation, and an inode and link flood in a turn is stopped at /work's limits while /health
// keeps answering (its slowest answer during the flood is printed). Skipped aloud where bubblewrap cannot run.
import { readFileSync } from 'node:fs';
import { sandboxRoot } from '#code-execution';
import { client, startTestApi, uniqueName, type TestApi } from './support/api.js';
import { sandboxAvailability } from './support/sandbox-probe.js';
import { agentInNewSpace, newAgent, newSpace, sendTurn, type Json } from './support/scenario.js';
const fenced = (language: string, code: string) => `Please run this:\n\`\`\`${language}\n${code}\n\`\`\``;

const suite = (await sandboxAvailability('sandbox limits e2e')) ? describe : describe.skip;

/** The kept files a turn's answer names (the offline model repeats the tool's `files:` line). */
const filesOf = (content: string): string[] =>
  /Files: (.*)/
    .exec(content)?.[1]
    ?.split(', ')
    .map((name) => name.trim())
    .filter(Boolean) ?? [];

suite('sandbox limits (e2e)', () => {
  let api: TestApi;
  let admin: ReturnType<typeof client>;
  let spaceId: string;

  beforeAll(async () => {
    api = await startTestApi({
      SANDBOX_RUN_TIMEOUT_SECONDS: '20',
      SANDBOX_MAX_FILES_PER_RUN: '3',
      SANDBOX_MAX_FILES_PER_CONVERSATION: '5',
      SANDBOX_MAX_INODES: '10000',
    });
    admin = client(api.url);
    spaceId = await newSpace(admin, uniqueName('Limits'));
  });
  afterAll(async () => {
    await api.close();
    expect(api.logs()).not.toContain('unhandled error');
  });

  const coder = () => ({ name: uniqueName('Coder'), knowledgeEnabled: false, codeExecutionEnabled: true });
  const codeAgent = () => newAgent(admin, spaceId, coder());
  const turn = (agentId: string, body: Json) => sendTurn(admin, agentId, body);

  it('keeps at most SANDBOX_MAX_FILES_PER_RUN files of a run and SANDBOX_MAX_FILES_PER_CONVERSATION in all', async () => {
    const agentId = await codeAgent();
    const write = (prefix: string) =>
      fenced('sh', `for i in 1 2 3 4 5 6 7 8 9 10; do echo $i > ${prefix}$i.txt; done`);
    const first = await turn(agentId, { message: write('a') });
    expect(first.status).toBe(201);
    expect(filesOf(first.body.message.content)).toHaveLength(3);
    const { conversationId } = first.body;
    const second = await turn(agentId, { conversationId, message: write('b') });
    expect(filesOf(second.body.message.content)).toHaveLength(2);
    const third = await turn(agentId, { conversationId, message: write('c') });
    expect(filesOf(third.body.message.content)).toHaveLength(0);
    // The files stay in /work for the code; only keeping them is capped.
    const listed = await turn(agentId, { conversationId, message: fenced('sh', 'ls | wc -l') });
    expect(listed.body.message.content).toContain('output: 30');
  }, 120_000);

  it('stops an inode and link flood at /work limits while /health keeps answering', async () => {
    const agentId = await codeAgent();
    const flood =
      'import os\ndirs = links = 0\ntry:\n    for i in range(50000):\n        os.mkdir(f"d{i}")\n        dirs += 1\n' +
      'except OSError as e:\n    pass\ntry:\n    for i in range(3000):\n        os.symlink("/etc/passwd", f"l{i}")\n' +
      '        links += 1\nexcept OSError:\n    pass\ntry:\n    with open("big.bin", "wb") as f:\n' +
      '        for _ in range(100):\n            f.write(b"x" * 1048576)\nexcept OSError:\n    pass\nprint("made", dirs, links)';
    let slowest = 0;
    let polls = 0;
    let flooding = true;
    const poll = (async () => {
      while (flooding) {
        const started = performance.now();
        const health = await fetch(`${api.url}/health`);
        await health.arrayBuffer();
        slowest = Math.max(slowest, performance.now() - started);
        polls += 1;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    const reply = await turn(agentId, { message: fenced('python', flood) });
    flooding = false;
    await poll;
    expect(reply.status).toBe(201);
    const [dirs, links] = /made (\d+) (\d+)/.exec(reply.body.message.content)!.slice(1).map(Number) as [
      number,
      number,
    ];
    console.log(
      `inode/link flood over HTTP: ${dirs} dirs and ${links} links made (limit 10,000 inodes); ` +
        `/health slowest of ${polls} polls during the turn: ${slowest.toFixed(0)} ms`,
    );
    expect(dirs + links).toBeLessThan(10_000);
    expect(polls).toBeGreaterThan(0);
  }, 120_000);

  it('unmounts the /work of the sandboxes a process made when it stops', async () => {
    const other = await startTestApi({ SANDBOX_RUN_TIMEOUT_SECONDS: '20' });
    const root = sandboxRoot(other.config.dataDir);
    const mounted = () =>
      readFileSync('/proc/self/mountinfo', 'utf8')
        .split('\n')
        .filter((line) => line.includes(root)).length;
    try {
      const otherAdmin = client(other.url);
      const { agentId } = await agentInNewSpace(otherAdmin, coder(), uniqueName('Stop'));
      const reply = await sendTurn(otherAdmin, agentId, { message: fenced('sh', 'echo kept > kept.txt') });
      expect(reply.status).toBe(201);
      expect(mounted()).toBe(1);
    } finally {
      await other.close();
    }
    expect(mounted()).toBe(0);
  }, 120_000);
});
