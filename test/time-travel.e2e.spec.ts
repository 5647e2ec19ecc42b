// Time travel for the rest (issue 25 §2): a Skill, the Agent's available Skills (the versions active), a document's
// metadata, the Agent's Knowledge set (the documents that were Ready) and a memory bucket, each answered with ?asOf=
// as it was before and after each change, folded from the log; an erased memory text shows as erased; the CLI prints
// the Skill's and the Knowledge set's differences between two times.
import { setTimeout as sleep } from 'node:timers/promises';
import { waitUntil } from '#testing/fixtures';
import { capturedOutput } from '../apps/cli/src/output.js';
import { client, CORE, startTestApi, uniqueName, type TestApi } from './support/api.js';

type Skill = {
  id: string;
  name: string;
  activeVersionId: string | null;
  draftVersionId: string | null;
  versions?: { id: string; number: number; state: string }[];
};
type Doc = { id: string; name: string; status: string };
type Memory = { id: string; text: string | null; version: number; erased?: boolean };

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

describe('time travel: Skills, documents, the Knowledge set, memories (e2e)', () => {
  let api: TestApi;
  let admin: ReturnType<typeof client>;

  beforeAll(async () => {
    api = await startTestApi();
    admin = client(api.url);
  }, 60_000);
  afterAll(async () => {
    await api.close();
    expect(api.logs()).not.toContain('unhandled error');
  });

  /** The current time, then a pause so the next change is strictly later. */
  const mark = async () => {
    await sleep(5);
    const at = new Date().toISOString();
    await sleep(5);
    return at;
  };

  it('answers a Skill, the available Skills, a document, the Knowledge set and memories as of each time', async () => {
    const space = await admin.post<{ id: string }>(`${CORE}/spaces`, { name: uniqueName('Travel') });
    expect(space.status).toBe(201);
    const agent = await admin.post<{ id: string }>(`${CORE}/agents`, {
      spaceId: space.body.id,
      name: uniqueName('Agent'),
      memoryEnabled: true,
    });
    expect(agent.status).toBe(201);
    const agentId = agent.body.id;
    const beforeAnything = await mark();

    // A Skill: version 1 published, version 2 published, then rolled back to 1.
    const name = `travel-${Math.random().toString(36).slice(2, 8)}`;
    const created = await admin.post<Skill>(`${CORE}/skills`, {
      agentId,
      name,
      description: 'Checks travel receipts.',
      instructions: 'Version one instructions.',
      publish: true,
    });
    expect(created.status).toBe(201);
    const skillId = created.body.id;
    const v1 = created.body.activeVersionId!;
    const atV1 = await mark();
    const drafted = await admin.put<Skill>(`${CORE}/skills/${skillId}`, { instructions: 'Version two.' });
    expect(drafted.status).toBe(200);
    const v2 = drafted.body.draftVersionId!;
    expect((await admin.post(`${CORE}/skills/${skillId}/publish`)).status).toBe(200);
    const atV2 = await mark();
    expect((await admin.put(`${CORE}/skills/${skillId}/active-version`, { versionId: v1 })).status).toBe(200);
    const atRollback = await mark();

    const skillAt = async (at: string) =>
      admin.get<Skill & { error?: { code: string } }>(
        `${CORE}/skills/${skillId}?asOf=${encodeURIComponent(at)}`,
      );
    expect((await skillAt(beforeAnything)).status).toBe(404);
    const first = await skillAt(atV1);
    expect(first.status).toBe(200);
    expect(first.body.activeVersionId).toBe(v1);
    expect(first.body.versions!.map((version) => [version.number, version.state])).toEqual([
      [1, 'published'],
    ]);
    expect((await skillAt(atV2)).body.activeVersionId).toBe(v2);
    expect((await skillAt(atRollback)).body.versions!.map((version) => version.state)).toEqual([
      'published',
      'published',
    ]);
    expect((await skillAt(atRollback)).body.activeVersionId).toBe(v1);

    // The Agent's available Skills: the version active then.
    const availableAt = async (at: string) => {
      const reply = await admin.get<{ data: Skill[] }>(
        `${CORE}/skills?agentId=${agentId}&asOf=${encodeURIComponent(at)}`,
      );
      expect(reply.status).toBe(200);
      return reply.body.data.find((skill) => skill.id === skillId) ?? null;
    };
    expect(await availableAt(beforeAnything)).toBeNull();
    expect((await availableAt(atV1))!.versions!.map((version) => version.id)).toEqual([v1]);
    expect((await availableAt(atV2))!.versions!.map((version) => version.id)).toEqual([v2]);
    expect((await availableAt(atRollback))!.versions!.map((version) => version.id)).toEqual([v1]);
    const spaceOnly = await admin.get<{ error: { param: string } }>(
      `${CORE}/skills?spaceId=${space.body.id}&asOf=${encodeURIComponent(atV1)}`,
    );
    expect([spaceOnly.status, spaceOnly.body.error.param]).toEqual([400, 'asOf']);
    expect((await admin.get(`${CORE}/skills/${skillId}?asOf=yesterday`)).status).toBe(400);

    // A document: added, Ready, renamed, deleted.
    const K = `${CORE}/knowledge/${agentId}/documents`;
    const added = await admin.post<Doc>(K, {
      name: 'travel.md',
      text: 'Receipts older than 90 days are refused.',
    });
    expect(added.status).toBe(201);
    const documentId = added.body.id;
    await waitUntil(async () => (await admin.get<Doc>(`${K}/${documentId}`)).body.status === 'Ready', 30_000);
    const atReady = await mark();
    expect((await admin.put(`${K}/${documentId}`, { name: 'travel-policy.md' })).status).toBe(200);
    const atRenamed = await mark();
    expect((await admin.delete(`${K}/${documentId}`)).status).toBeLessThan(300);
    const atDeleted = await mark();

    const documentAt = (at: string) => admin.get<Doc>(`${K}/${documentId}?asOf=${encodeURIComponent(at)}`);
    expect((await documentAt(beforeAnything)).status).toBe(404);
    expect((await documentAt(atReady)).body).toMatchObject({ name: 'travel.md', status: 'Ready' });
    expect((await documentAt(atRenamed)).body).toMatchObject({ name: 'travel-policy.md', status: 'Ready' });
    expect((await documentAt(atDeleted)).status).toBe(404);
    expect((await admin.get(`${K}/${documentId}`)).status).toBe(404);
    const setAt = async (at: string) => {
      const reply = await admin.get<{ data: Doc[] }>(`${K}?status=Ready&asOf=${encodeURIComponent(at)}`);
      expect(reply.status).toBe(200);
      return reply.body.data.map((document) => document.id);
    };
    expect(await setAt(beforeAnything)).not.toContain(documentId);
    expect(await setAt(atReady)).toContain(documentId);
    expect(await setAt(atDeleted)).not.toContain(documentId);

    // A memory: added, edited, deleted (its key destroyed: erased).
    const M = `${CORE}/memory/${agentId}/memories`;
    const memory = await admin.post<Memory>(M, { text: 'Prefers train travel.', bucket: 'personal' });
    expect(memory.status).toBe(201);
    const atMemory = await mark();
    expect((await admin.patch(`${M}/${memory.body.id}`, { text: 'Prefers night trains.' })).status).toBe(200);
    const atEdited = await mark();
    const memoriesAt = async (at: string) => {
      const reply = await admin.get<{ data: Memory[] }>(`${M}?asOf=${encodeURIComponent(at)}`);
      expect(reply.status).toBe(200);
      return reply.body.data.filter((entry) => entry.id === memory.body.id);
    };
    expect(await memoriesAt(beforeAnything)).toEqual([]);
    expect(await memoriesAt(atMemory)).toMatchObject([
      { version: 1, text: 'Prefers train travel.', erased: false },
    ]);
    expect(await memoriesAt(atEdited)).toMatchObject([
      { version: 2, text: 'Prefers night trains.', erased: false },
    ]);
    expect((await admin.delete(`${M}/${memory.body.id}`)).status).toBeLessThan(300);
    await waitUntil(async () => (await memoriesAt(atEdited))[0]?.erased === true, 30_000);
    expect(await memoriesAt(atEdited)).toMatchObject([{ version: 2, text: null, erased: true }]);
    expect(await memoriesAt(new Date().toISOString())).toEqual([]);

    // The CLI: the Skill and the Knowledge set as of a time, and what changed between two times.
    const skillShow = await runCli(api, 'skill', 'show', skillId, '--as-of', atV2);
    expect(skillShow.errors).toEqual([]);
    expect(JSON.parse(skillShow.lines.join('\n'))).toMatchObject({ id: skillId, activeVersionId: v2 });
    const skillDiff = await runCli(api, 'skill', 'diff', skillId, '--from', atV2, '--to', atRollback);
    expect(skillDiff.lines).toContain(`activeVersionId: ${v2} → ${v1}`);
    const knowledgeDiff = await runCli(
      api,
      'agent',
      'knowledge',
      agentId,
      '--from',
      beforeAnything,
      '--to',
      atReady,
    );
    expect(knowledgeDiff.errors).toEqual([]);
    expect(knowledgeDiff.lines).toContain(`+ ${documentId} travel.md (Ready)`);
    const skillsDiff = await runCli(api, 'agent', 'skills', agentId, '--from', atV2, '--to', atRollback);
    expect(skillsDiff.lines).toContain(`~ ${name}: version 2 → version 1`);
  }, 120_000);
});
