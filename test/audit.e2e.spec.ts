// The audit trail and time travel over HTTP and the CLI (issue 25 §1, §2): a scripted sequence by a Space owner's key
// (create a Space and an Agent, change the prompt twice, add and delete a document, delete the Space), then who did
// each with before → after values and the cascade's correlation; the CLI's CSV gives the same rows; an export's hash
// chain verifies and fails after one byte is changed; ?asOf= answers the prompt as it was before each change.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { EVENT_STORE, type EventStore } from '#event-store';
import { AuditTrail, verifyChain, type AuditEntry } from '#audit';
import { waitUntil } from '#testing/fixtures';
import { AuditReport, CSV_COLUMNS, auditRow, csvCell } from '../apps/cli/src/audit-report.js';
import { capturedOutput, CliError } from '../apps/cli/src/output.js';
import { client, CORE, startTestApi, uniqueName, type TestApi } from './support/api.js';

type Page = { data: AuditEntry[]; nextCursor: string | null };

/**
 * One run of the CLI as `npm run cli -- …` runs it (nest-commander parsing the arguments), over the api's stores: what
 * it printed and its errors. A fresh CLI each time, as each process parses once.
 */
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

describe('audit trail and time travel (e2e)', () => {
  let api: TestApi;
  let admin: ReturnType<typeof client>;

  beforeAll(async () => {
    api = await startTestApi();
    admin = client(api.url);
  });
  afterAll(async () => {
    await api.close();
  });

  const issueKey = async (email: string) => {
    const reply = await admin.post<{ id: string; key: string; ownerUserId: string }>(`${CORE}/api-keys`, {
      name: uniqueName('key'),
      owner: { email },
      agents: 'all',
    });
    expect(reply.status).toBe(201);
    return reply.body;
  };

  /** The current time, then a pause so the next change is strictly later. */
  const mark = async () => {
    const at = new Date().toISOString();
    await sleep(5);
    return at;
  };

  it('answers who changed what (before → after), the cascade, the CLI rows, the export chain and ?asOf=', async () => {
    const ownerKey = await issueKey(`owner-${Date.now()}@example.com`);
    const owner = client(api.url, ownerKey.key);
    const beforeAll = await mark();

    const space = await owner.post<{ id: string }>(`${CORE}/spaces`, { name: uniqueName('Audit') });
    expect(space.status).toBe(201);
    const spaceId = space.body.id;
    const agent = await owner.post<{ id: string }>(`${CORE}/agents`, {
      spaceId,
      name: 'Auditor',
      systemPrompt: 'Prompt one.',
    });
    expect(agent.status).toBe(201);
    const agentId = agent.body.id;
    const atOne = await mark();
    expect(
      (await owner.put(`${CORE}/agents/${agentId}/prompt`, { systemPrompt: 'Prompt two.' })).status,
    ).toBe(200);
    const atTwo = await mark();
    expect(
      (await owner.put(`${CORE}/agents/${agentId}/prompt`, { systemPrompt: 'Prompt three.' })).status,
    ).toBe(200);
    const atThree = await mark();
    const document = await owner.post<{ id: string }>(`${CORE}/knowledge/${agentId}/documents`, {
      name: 'notes.md',
      text: 'AUDIT-SECRET-TEXT of the document.',
    });
    expect(document.status).toBe(201);
    expect(
      (await owner.delete(`${CORE}/knowledge/${agentId}/documents/${document.body.id}`)).status,
    ).toBeLessThan(300);
    expect((await owner.delete(`${CORE}/spaces/${spaceId}`)).status).toBeLessThan(300);

    // The Space's deletion cascades to its Agent through a process manager: wait for it in the trail.
    const trail = async (query: string, as = admin) =>
      as.get<Page>(`${CORE}/audit?resourceId=${spaceId}&order=oldest&limit=500${query}`);
    await waitUntil(
      async () => (await trail('')).body.data.some((entry) => entry.eventType === 'AgentDeleted'),
      30_000,
    );
    const entries = (await trail('')).body.data;
    const byType = (type: string) => entries.filter((entry) => entry.eventType === type);

    // Who did each: the owner's key, with the person behind it.
    const created = byType('SpaceCreated')[0]!;
    expect(created).toMatchObject({
      actor: { kind: 'apiKey', id: ownerKey.id, userId: ownerKey.ownerUserId },
      credentialKind: 'apiKey',
      action: 'created the Space',
      resource: { type: 'space', id: spaceId },
    });
    expect(byType('AgentCreated')[0]!.changes).toContainEqual({
      field: 'systemPrompt',
      before: null,
      after: 'Prompt one.',
    });
    // Before → after, derived by folding the Agent's stream.
    expect(byType('AgentSystemPromptChanged').map((entry) => entry.changes)).toEqual([
      [{ field: 'systemPrompt', before: 'Prompt one.', after: 'Prompt two.' }],
      [{ field: 'systemPrompt', before: 'Prompt two.', after: 'Prompt three.' }],
    ]);
    expect(byType('DocumentAdded')[0]).toMatchObject({
      action: 'added a document',
      actor: { id: ownerKey.id },
      resource: { type: 'document', id: document.body.id },
    });
    expect(byType('DocumentDeleted')[0]).toMatchObject({ actor: { id: ownerKey.id } });
    // The cascade: the Agent was deleted by the platform, in the Space deletion's correlation, caused by it.
    const spaceDeleted = byType('SpaceDeleted')[0]!;
    const agentDeleted = byType('AgentDeleted')[0]!;
    expect(spaceDeleted.actor.id).toBe(ownerKey.id);
    expect(agentDeleted.correlationId).toBe(spaceDeleted.correlationId);
    // The source address of the request that made each change (carried in the command's metadata); none for the
    // platform's cascade.
    expect(created.sourceAddress).toMatch(/^(::ffff:)?127\.0\.0\.1$|^::1$/);
    expect(byType('AgentSystemPromptChanged')[0]!.sourceAddress).toBe(created.sourceAddress);
    expect(agentDeleted.sourceAddress).toBeNull();
    expect(agentDeleted.causationId).not.toBeNull();
    const cascade = await admin.get<Page>(
      `${CORE}/audit?correlationId=${encodeURIComponent(spaceDeleted.correlationId)}&order=oldest`,
    );
    expect(cascade.body.data.map((entry) => entry.eventType)).toEqual(
      expect.arrayContaining(['SpaceDeleted', 'AgentDeleted']),
    );
    // Secrets and document text never appear.
    const everything = JSON.stringify((await admin.get<Page>(`${CORE}/audit?limit=500`)).body);
    expect(everything).not.toContain('keyHash');
    expect(everything).not.toContain(ownerKey.key);
    expect(everything).not.toContain('AUDIT-SECRET-TEXT');

    // Filters and paging: the Agent's prompt changes, newest first, one a page.
    const first = await admin.get<Page>(
      `${CORE}/audit?resourceId=${agentId}&action=AgentSystemPromptChanged&limit=1`,
    );
    expect(first.body.data[0]!.changes[0]!.after).toBe('Prompt three.');
    const second = await admin.get<Page>(
      `${CORE}/audit?resourceId=${agentId}&action=AgentSystemPromptChanged&limit=1&cursor=${first.body.nextCursor}`,
    );
    expect(second.body.data[0]!.changes[0]!.after).toBe('Prompt two.');
    expect(second.body.nextCursor).toBeNull();
    expect(
      (
        await admin.get<Page>(`${CORE}/audit?from=${encodeURIComponent(atThree)}&resourceId=${agentId}`)
      ).body.data.every((entry) => entry.occurredAt >= atThree),
    ).toBe(true);

    // Access: the Space's owner reads its trail (even after deletion); another non-admin key does not.
    expect((await trail('', owner)).status).toBe(200);
    const stranger = client(api.url, (await issueKey(`stranger-${Date.now()}@example.com`)).key);
    expect((await trail('', stranger)).status).toBe(404);
    const whole = await stranger.get(`${CORE}/audit`);
    expect(whole.status).toBe(403);
    expect(whole.body).toMatchObject({ error: { code: 'admin_required' } });
    expect((await admin.get(`${CORE}/audit?from=yesterday`)).body).toMatchObject({
      error: { param: 'from' },
    });

    // Time travel: the prompt as it was before each change, though the Agent is deleted now.
    const asOf = (at: string, as = owner) =>
      as.get<{ systemPrompt: string }>(`${CORE}/agents/${agentId}?asOf=${encodeURIComponent(at)}`);
    expect((await asOf(atOne)).body.systemPrompt).toBe('Prompt one.');
    expect((await asOf(atTwo)).body.systemPrompt).toBe('Prompt two.');
    expect((await asOf(atThree)).body).toMatchObject({ id: agentId, spaceId, systemPrompt: 'Prompt three.' });
    expect((await asOf(beforeAll)).status).toBe(404);
    expect((await asOf(new Date().toISOString())).status).toBe(404);
    const bad = await asOf('not-a-time');
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: { param: 'asOf' } });
    const spaceThen = await owner.get<{ id: string; createdByApiKeyId: string }>(
      `${CORE}/spaces/${spaceId}?asOf=${encodeURIComponent(atOne)}`,
    );
    expect(spaceThen.status).toBe(200);
    expect(spaceThen.body).toMatchObject({ id: spaceId, createdByApiKeyId: ownerKey.id });
    expect((await stranger.get(`${CORE}/spaces/${spaceId}?asOf=${encodeURIComponent(atOne)}`)).status).toBe(
      404,
    );

    // The CLI over the same stores: CSV gives the same rows as the API.
    // (Both up to one time: processes may still append after the cascade, e.g. purging the document's content.)
    const cutoff = await mark();
    const rows = (await trail(`&to=${encodeURIComponent(cutoff)}`)).body.data;
    const output = capturedOutput();
    const report = new AuditReport(api.app.get(AuditTrail), api.app.get<EventStore>(EVENT_STORE), output);
    await report.list({ resourceId: spaceId, order: 'oldest', to: cutoff }, 'csv');
    expect(output.lines[0]).toBe(CSV_COLUMNS.join(','));
    expect(output.lines.slice(1)).toEqual(rows.map((entry) => auditRow(entry).map(csvCell).join(',')));
    const promptRow = output.lines.find((line) => line.includes('AgentSystemPromptChanged'))!;
    expect(promptRow).toContain('systemPrompt: Prompt one. → Prompt two.');

    // Export and verify; one byte changed breaks the chain.
    const file = join(mkdtempSync(join(tmpdir(), 'audit-export-')), 'audit.jsonl');
    await report.export({ resourceId: spaceId, to: cutoff }, file);
    await report.verify(file);
    expect(output.lines.at(-1)).toMatch(new RegExp(`${rows.length} entries, chain intact`));
    const text = readFileSync(file, 'utf8');
    // Over HTTP (the web app's download), the Space's owner gets the same chain, line for line.
    const downloaded = await fetch(
      `${api.url}${CORE}/audit/export?resourceId=${spaceId}&to=${encodeURIComponent(cutoff)}`,
      { headers: { 'x-api-key': ownerKey.key } },
    );
    expect(downloaded.status).toBe(200);
    expect(downloaded.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    expect(downloaded.headers.get('content-disposition')).toMatch(/^attachment; filename="audit-/);
    const body = await downloaded.text();
    expect(body).toBe(text);
    expect(verifyChain(body)).toMatchObject({ ok: true, count: rows.length });
    const wholeTrail = await fetch(`${api.url}${CORE}/audit/export`, {
      headers: { 'x-api-key': ownerKey.key },
    });
    expect(wholeTrail.status).toBe(403);
    const at = text.indexOf('Prompt two.');
    writeFileSync(file, `${text.slice(0, at)}X${text.slice(at + 1)}`);
    await expect(report.verify(file)).rejects.toThrow(CliError);

    // agent show --as-of and agent diff.
    const shown = capturedOutput();
    const cli = new AuditReport(api.app.get(AuditTrail), api.app.get<EventStore>(EVENT_STORE), shown);
    await cli.agentShow(agentId, atTwo);
    expect(JSON.parse(shown.lines.join('\n'))).toMatchObject({ systemPrompt: 'Prompt two.' });
    await cli.agentDiff(agentId, atOne, atThree);
    expect(shown.lines.slice(1)).toEqual(['systemPrompt: Prompt one. → Prompt three.']);

    // The same through nest-commander's argument parsing, over the api's data directory (as `npm run cli --` runs).
    const parsed = await runCli(api, 'audit', '--format', 'csv', '--resource', spaceId, '--to', cutoff);
    expect(parsed.errors).toEqual([]);
    expect(parsed.lines).toEqual(output.lines.slice(0, rows.length + 1));
    const exported = join(mkdtempSync(join(tmpdir(), 'audit-export-')), 'audit.jsonl');
    const exportRun = await runCli(
      api,
      'audit',
      'export',
      '--out',
      exported,
      '--resource',
      agentId,
      '--to',
      cutoff,
    );
    expect(exportRun.errors).toEqual([]);
    // Read after the export: model calls are recorded in batches, so a call made before the cutoff may be appended
    // after the export ran; it then has a later log position than anything the export saw (its trailer's toPosition).
    const trailer = (
      JSON.parse(readFileSync(exported, 'utf8').trim().split('\n').at(-1)!) as {
        trailer: { toPosition: number };
      }
    ).trailer;
    const agentRows = (
      await admin.get<Page>(
        `${CORE}/audit?resourceId=${agentId}&to=${encodeURIComponent(cutoff)}&order=oldest&limit=500`,
      )
    ).body.data.filter((entry) => entry.position <= trailer.toPosition);
    expect(agentRows.map((entry) => entry.eventType)).toEqual(
      expect.arrayContaining([
        'AgentCreated',
        'AgentSystemPromptChanged',
        'DocumentAdded',
        'DocumentDeleted',
      ]),
    );
    expect(exportRun.lines).toEqual([
      expect.stringMatching(new RegExp(`^exported ${agentRows.length} entries`)),
    ]);
    expect((await runCli(api, 'audit', 'verify', exported)).errors).toEqual([]);
    const bytes = readFileSync(exported);
    bytes[Math.floor(bytes.length / 2)]! ^= 1;
    writeFileSync(exported, bytes);
    expect((await runCli(api, 'audit', 'verify', exported)).errors).toEqual([
      expect.stringMatching(/chain is broken at line \d+/),
    ]);
    const diff = await runCli(api, 'agent', 'diff', agentId, '--from', atOne, '--to', atTwo);
    expect(diff.lines).toEqual(['systemPrompt: Prompt one. → Prompt two.']);
    const show = await runCli(api, 'agent', 'show', agentId, '--as-of', atOne);
    expect(JSON.parse(show.lines.join('\n'))).toMatchObject({ systemPrompt: 'Prompt one.' });
  });

  it('answers malformed audit and asOf queries with a 400 naming the parameter, and documents both', async () => {
    for (const [query, param] of [
      ['cursor=-1', 'cursor'],
      ['order=sideways', 'order'],
      ['limit=0', 'limit'],
      ['to=2026-13-45', 'to'],
      ['resourceId=a&resourceId=b', 'resourceId'],
      ['unknown=1', 'unknown'],
    ] as const) {
      const reply = await admin.get(`${CORE}/audit?${query}`);
      expect([query, reply.status, reply.body]).toMatchObject([query, 400, { error: { param } }]);
    }
    for (const path of ['agents', 'spaces']) {
      const reply = await admin.get(`${CORE}/${path}/nope?asOf=2026-01-01&asOf=2026-01-02`);
      expect(reply.status).toBe(400);
      expect(reply.body).toMatchObject({ error: { param: 'asOf' } });
    }
    const openapi = await admin.get<{
      paths: Record<string, Record<string, { parameters?: { name: string }[] }>>;
    }>(`${CORE}/openapi.json`);
    expect(openapi.body.paths[`${CORE}/audit`]?.get).toBeDefined();
    for (const path of [`${CORE}/agents/{agentId}`, `${CORE}/spaces/{spaceId}`])
      expect(openapi.body.paths[path]!.get!.parameters!.map((parameter) => parameter.name)).toContain('asOf');
  });

  it("keeps a user's private personal Space out of everyone else's audit, admins included", async () => {
    const email = `private-${Date.now()}@example.com`;
    const own = client(api.url, (await issueKey(email)).key);
    // The personal-space and personal-agent processes follow the registration.
    await waitUntil(async () =>
      (
        await own.get<{ data: { isPersonal: boolean; spaceId: string | null }[] }>(`${CORE}/agents?limit=200`)
      ).body.data.some((agent) => agent.isPersonal && agent.spaceId !== null),
    );
    const agents = await own.get<{ data: { id: string; isPersonal: boolean; spaceId: string }[] }>(
      `${CORE}/agents?limit=200`,
    );
    const personal = agents.body.data.find((agent) => agent.isPersonal)!;
    const secret = `AUDIT-PRIVATE-${Date.now()}`;
    expect((await own.put(`${CORE}/agents/${personal.id}/prompt`, { systemPrompt: secret })).status).toBe(
      200,
    );

    // Its user reads it; an admin is answered as for an unknown resource, as everywhere else in the API.
    const mine = await own.get<Page>(`${CORE}/audit?resourceId=${personal.id}`);
    expect(mine.status).toBe(200);
    expect(JSON.stringify(mine.body)).toContain(secret);
    for (const resourceId of [personal.id, personal.spaceId]) {
      const refused = await admin.get<{ error: { code: string } }>(`${CORE}/audit?resourceId=${resourceId}`);
      expect([refused.status, refused.body.error.code]).toEqual([404, 'resource_not_found']);
    }
    // The whole trail leaves them out too, while it still lists everything else.
    const whole = await admin.get<Page>(`${CORE}/audit?limit=500`);
    expect(whole.status).toBe(200);
    expect(whole.body.data.length).toBeGreaterThan(0);
    expect(JSON.stringify(whole.body)).not.toContain(secret);
    expect(whole.body.data.map((entry) => entry.resource.id)).not.toContain(personal.id);
  });
});
