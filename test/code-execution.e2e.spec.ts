// Code execution in conversations end to end over HTTP: the offline model runs a fenced block with run_code in the
// conversation's bubblewrap sandbox; files persist between turns; the Agent's Skills' files are under /skills and a
// new Skill rebuilds them; the sandbox's state is a route; deleting a turn's messages erases its runs (routes, a
// rebuild, every file of the data directory); deleting the conversation removes the sandbox and its files.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BLOB_STORE, type BlobStore } from '#blob-store';
import { strToU8, zipSync } from 'fflate';
import { sandboxRoot } from '#code-execution';
import { EVENT_STORE, type EventStore } from '#event-store';
import { waitUntil } from '#testing/fixtures';
import { IngestionWorker } from '#knowledge/ingestion.worker';
import { SummaryIndexWorker } from '#knowledge/summary/summary-index.worker';
import { ADMIN_KEY, client, CORE, startTestApi, uniqueName, type TestApi } from './support/api.js';
import { sandboxAvailability } from './support/sandbox-probe.js';
import { agentInNewSpace, LLM, newAgent, newSpace, sendTurn, type Json } from './support/scenario.js';

const marker = (prefix: string) => `${prefix}${Math.random().toString(36).slice(2, 12).toUpperCase()}`;

/** Every file under `dir` (recursively: databases, their -wal and -shm files, blobs) whose bytes hold `needle`. */
function filesContaining(dir: string, needle: string): string[] {
  const bytes = Buffer.from(needle);
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    let content: Buffer;
    try {
      content = readFileSync(path);
    } catch {
      continue; // removed meanwhile (a rotated journal)
    }
    if (content.includes(bytes)) found.push(path);
  }
  return found;
}

/** Runs the compiled CLI over a data directory, as `npm run cli -- …` does. */
async function cli(dataDir: string, ...args: string[]): Promise<{ code: number | null; output: string }> {
  const main = fileURLToPath(new URL('../dist/apps/cli/src/main.js', import.meta.url));
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [main, ...args], {
      env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('exit', (code) => resolve({ code, output }));
  });
}
const fenced = (language: string, code: string) => `Please run this:\n\`\`\`${language}\n${code}\n\`\`\``;

const suite = (await sandboxAvailability('code execution e2e')) ? describe : describe.skip;

suite('code execution in conversations (e2e)', () => {
  let api: TestApi;
  let admin: ReturnType<typeof client>;
  let spaceId: string;

  beforeAll(async () => {
    api = await startTestApi({ SANDBOX_RUN_TIMEOUT_SECONDS: '10' });
    admin = client(api.url);
    spaceId = await newSpace(admin, uniqueName('Code'));
  });
  afterAll(async () => {
    await api.close();
    expect(api.logs()).not.toContain('unhandled error');
  });

  const agent = (settings: Json) =>
    newAgent(admin, spaceId, { name: uniqueName('Coder'), knowledgeEnabled: false, ...settings });
  const turn = (agentId: string, body: Json) => sendTurn(admin, agentId, body);

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
    const other = await admin.post<{ key: string; ownerUserId: string }>(`${CORE}/api-keys`, {
      name: uniqueName('other'),
      owner: { email: `${uniqueName('o').replace(/\s/g, '')}@example.com` },
    });
    // Another member of the Space: they use the Agent, not another's conversation.
    const joined = await admin.post(`${CORE}/spaces/${spaceId}/members`, {
      userId: other.body.ownerUserId,
      role: 'member',
    });
    expect(joined.status).toBe(201);
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

    // The upload appends the Skill and then its published version: a rebuild caused by the first may record a sandbox
    // without the Skill yet; the one caused by the publish holds it.
    const store = api.app.get<EventStore>(EVENT_STORE);
    const holdsTheSkill = (event: { type: string; data: unknown }) =>
      event.type === 'SandboxSkillsReplaced' &&
      (event.data as { skills: { name: string }[] }).skills.some((skill) => skill.name === 'unit-converter');
    await waitUntil(
      async () => (await store.readStream(`conversation-sandbox-${conversationId}`)).some(holdsTheSkill),
      15_000,
    );
    const replaced = (await store.readStream(`conversation-sandbox-${conversationId}`)).find(holdsTheSkill)!;
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
    const secret = marker('KEPTBYTES');
    const first = await turn(agentId, {
      message: fenced('sh', `printf '%s%s' KEPTBYTES ${secret.slice('KEPTBYTES'.length)} > kept.txt`),
    });
    const { conversationId } = first.body;
    const store = api.app.get<EventStore>(EVENT_STORE);
    const ran = (await store.readStream(`conversation-sandbox-${conversationId}`)).find(
      (event) => event.type === 'CodeRan',
    )!;
    const { blobIds, files } = ran.data as { blobIds: string[]; files: unknown[] };
    // The file's name, path and address are sealed in the event; its bytes are sealed in the blob store.
    expect(files).toEqual([]);
    expect(blobIds).toHaveLength(1);
    expect(JSON.stringify(ran.data)).not.toContain('kept.txt');
    const blobs = api.app.get<BlobStore>(BLOB_STORE);
    expect(await blobs.has(blobIds[0]!)).toBe(true);
    expect(filesContaining(api.config.dataDir, secret)).toEqual([]);

    const root = sandboxRoot(api.config.dataDir);
    expect(readdirSync(root).some((name) => name.includes(conversationId))).toBe(true);
    expect((await admin.delete(`${LLM}/${agentId}/conversation/${conversationId}`)).status).toBe(204);
    // Erased by the time the deletion answers: the run's keys and its file's blob are gone.
    expect(await blobs.has(blobIds[0]!)).toBe(false);
    expect((await store.readStream(`conversation-sandbox-${conversationId}`)).map((e) => e.type)).toContain(
      'CodeRunsErased',
    );
    await waitUntil(async () => !readdirSync(root).some((name) => name.includes(conversationId)), 15_000);
    expect(existsSync(join(root, `sbx-${conversationId}`))).toBe(false);
  });

  it("erases a turn's runs with its messages: no code, output or file on any route, after a rebuild, or in any file", async () => {
    const own = await startTestApi({ SANDBOX_RUN_TIMEOUT_SECONDS: '10' });
    const as = client(own.url);
    const { turns: path } = await agentInNewSpace(
      as,
      { name: uniqueName('Coder'), knowledgeEnabled: false, codeExecutionEnabled: true },
      uniqueName('Erase'),
    );
    // Four markers: in the code as written, and three the code assembles, so each appears only where it is produced.
    const [code, output, name, body] = ['CODE', 'OUT', 'NAME', 'BODY'].map(marker) as [
      string,
      string,
      string,
      string,
    ];
    const half = (value: string) => [value.slice(0, 4), value.slice(4)] as const;
    const parts = (value: string) => `'${half(value)[0]}' + '${half(value)[1]}'`;

    const kept = await as.post<{ conversationId: string }>(path, {
      message: fenced('sh', 'echo staying > stays.txt; echo kept run'),
    });
    expect(kept.status).toBe(201);
    const { conversationId } = kept.body;
    const erased = await as.post<{ userMessage: { id: string }; message: { id: string; content: string } }>(
      path,
      {
        conversationId,
        message: fenced(
          'python',
          `# ${code}\nopen(${parts(name)} + '.txt', 'w').write(${parts(body)})\nprint(${parts(output)})`,
        ),
      },
    );
    expect(erased.status).toBe(200);
    expect(erased.body.message.content).toContain(output);
    const sandboxPath = `${path}/${conversationId}/sandbox`;
    const download = (file: string) =>
      fetch(`${own.url}${sandboxPath}/files?path=${encodeURIComponent(file)}`, {
        headers: { 'x-api-key': ADMIN_KEY },
      });
    const before = await as.get<{ calls: Json[] }>(sandboxPath);
    expect(before.body.calls).toHaveLength(2);
    expect(JSON.stringify(before.body)).toContain(output);
    expect(await (await download(`${name}.txt`)).text()).toBe(body);
    // Sealed from the start: none of them is in the clear anywhere under DATA_DIR.
    for (const secret of [code, output, name, body])
      expect(filesContaining(own.config.dataDir, secret)).toEqual([]);

    for (const messageId of [erased.body.userMessage.id, erased.body.message.id])
      expect((await as.delete(`${path}/${conversationId}/messages/${messageId}`)).status).toBe(204);

    const check = async (url: string) => {
      const after = await client(url).get<{ calls: { code: string; files: { path: string }[] }[] }>(
        sandboxPath,
      );
      expect(after.status).toBe(200);
      expect(after.body.calls).toHaveLength(1);
      expect(after.body.calls[0]!.code).toContain('stays.txt');
      expect(after.body.calls[0]!.files.map((file) => file.path)).toEqual(['stays.txt']);
      for (const secret of [code, output, name, body])
        expect(JSON.stringify(after.body)).not.toContain(secret);
      const gone = await fetch(`${url}${sandboxPath}/files?path=${encodeURIComponent(`${name}.txt`)}`, {
        headers: { 'x-api-key': ADMIN_KEY },
      });
      expect(gone.status).toBe(404);
      const stays = await fetch(`${url}${sandboxPath}/files?path=stays.txt`, {
        headers: { 'x-api-key': ADMIN_KEY },
      });
      expect(await stays.text()).toBe('staying\n');
    };
    await check(own.url);
    for (const secret of [code, output, name, body])
      expect(filesContaining(own.config.dataDir, secret)).toEqual([]);
    await own.close();

    // A rebuild of the read model from the log brings nothing of the erased run back.
    const rebuild = await cli(own.config.dataDir, 'projections', 'rebuild', 'code-execution');
    expect(rebuild).toMatchObject({ code: 0 });
    const reopened = await startTestApi({ DATA_DIR: own.config.dataDir });
    try {
      await check(reopened.url);
    } finally {
      await reopened.close();
    }
    for (const secret of [code, output, name, body])
      expect(filesContaining(own.config.dataDir, secret)).toEqual([]);
  }, 120_000);

  it('blobs gc, after every context stored blobs, removes only a real orphan: nothing live is gone', async () => {
    const own = await startTestApi({ SANDBOX_RUN_TIMEOUT_SECONDS: '10' });
    try {
      const as = client(own.url);
      const K = `${CORE}/knowledge`;
      const { spaceId: space, agentId } = await agentInNewSpace(
        as,
        { name: uniqueName('Gc'), codeExecutionEnabled: true },
        uniqueName('Gc'),
      );
      // Knowledge: a document (upload, extracted text, chunk list) and a summary tree over it.
      const text =
        '# Volcanoes\n\nEtna is an active stratovolcano in Sicily.\n\nVesuvius overlooks Naples.\n';
      const doc = (await as.post<{ id: string }>(`${K}/${agentId}/documents`, { name: 'v.md', text })).body
        .id;
      await waitUntil(async () => {
        await own.app.get(IngestionWorker).idle();
        return (await as.get<{ status: string }>(`${K}/${agentId}/documents/${doc}`)).body.status === 'Ready';
      }, 20_000);
      expect((await as.post(`${K}/${agentId}/summary-index/build`, {})).status).toBe(202);
      await waitUntil(async () => {
        await own.app.get(SummaryIndexWorker).idle();
        return (await as.get<{ status: string }>(`${K}/${agentId}/summary-index`)).body.status === 'ready';
      }, 20_000);
      // Skills: the DEFAULT ones (seeded at start) and one uploaded with a reference file.
      const form = new FormData();
      const bundle = zipSync({
        'SKILL.md': strToU8('---\nname: gc-units\ndescription: Convert units.\n---\nUse factors.csv.\n'),
        'factors.csv': strToU8('from,to,factor\nkm,mi,0.621\n'),
      });
      form.append('file', new Blob([Buffer.from(bundle)], { type: 'application/zip' }), 'units.zip');
      form.append('spaceId', space);
      form.append('publish', 'true');
      const upload = await fetch(`${own.url}${CORE}/skills/upload`, {
        method: 'POST',
        headers: { 'x-api-key': ADMIN_KEY },
        body: form,
      });
      expect(upload.status).toBe(201);
      // Code execution: a file a run kept.
      const ran = await as.post<{ conversationId: string }>(`${LLM}/${agentId}/conversation`, {
        message: fenced('sh', 'echo sandbox-file > out.txt'),
      });
      expect(ran.status).toBe(201);
      // A real orphan: bytes whose writer never recorded them.
      const blobs = own.app.get<BlobStore>(BLOB_STORE);
      const orphan = await blobs.put(Buffer.from(`orphan ${marker('ORPHAN')}`));

      const live = async () => {
        const skills = (
          await as.get<{ data: { id: string; name: string; activeVersionId: string }[] }>(
            `${CORE}/skills?agentId=${agentId}&limit=200`,
          )
        ).body.data;
        expect(skills.map((skill) => skill.name)).toEqual(
          expect.arrayContaining(['draft-email', 'gc-units']),
        );
        for (const skill of skills) {
          const version = await as.get<{ instructions: string | null }>(
            `${CORE}/skills/${skill.id}/versions/${skill.activeVersionId}`,
          );
          expect(version.body.instructions).toEqual(expect.any(String));
        }
        const content = await fetch(`${own.url}${K}/${agentId}/documents/${doc}/content`, {
          headers: { 'x-api-key': ADMIN_KEY },
        });
        expect(await content.text()).toContain('Etna is an active stratovolcano');
        expect((await as.get(`${K}/${agentId}/documents/${doc}/chunks`)).status).toBe(200);
        expect((await as.get(`${K}/${agentId}/summary-index/tree`)).status).toBe(200);
        const file = await fetch(
          `${own.url}${LLM}/${agentId}/conversation/${ran.body.conversationId}/sandbox/files?path=out.txt`,
          { headers: { 'x-api-key': ADMIN_KEY } },
        );
        expect(await file.text()).toBe('sandbox-file\n');
        // A new sandbox gets the Skills' reference files from their blobs.
        const fresh = await as.post<{ message: { content: string } }>(`${LLM}/${agentId}/conversation`, {
          message: fenced(
            'sh',
            'cat /skills/gc-units/factors.csv /skills/draft-email/tone-guide.md | head -2',
          ),
        });
        expect(fresh.body.message.content).toContain('km,mi,0.621');
      };
      await live();

      const dryRun = await cli(own.config.dataDir, 'blobs', 'gc', '--dry-run', '--min-age', '0');
      expect(dryRun.code).toBe(0);
      expect(dryRun.output.split('\n').filter((line) => line.startsWith('would remove'))).toEqual([
        `would remove  ${orphan.id}  ${orphan.sizeBytes} bytes`,
      ]);
      expect(dryRun.output).not.toContain('unaccounted');
      const gc = await cli(own.config.dataDir, 'blobs', 'gc', '--min-age', '0');
      expect(gc.code).toBe(0);
      expect(gc.output.split('\n').filter((line) => line.startsWith('removed'))).toEqual([
        `removed  ${orphan.id}  ${orphan.sizeBytes} bytes`,
      ]);
      expect(await blobs.has(orphan.id)).toBe(false);
      await live();
    } finally {
      await own.close();
    }
  }, 180_000);
});
