// Agent Skills end to end over real HTTP: a zip uploaded to a Space and followed by its Agents (provenance naming the
// version loaded), drafts that do not go live until published, rollback; one set of names for a Space and its
// Agents; the malicious zips refused with their reason and nothing stored; the marketplace (list, install, uninstall,
// archive, admins only); the DEFAULT Skills; who may see and change a Skill; deletion.
import { strToU8, zipSync, type Zippable } from 'fflate';
import {
  ADMIN_KEY,
  client,
  CORE,
  startTestApi,
  uniqueName,
  type TestApi,
  registeredPerson,
} from './support/api.js';

type Json = Record<string, unknown>;
type Client = ReturnType<typeof client>;
interface SkillVersion {
  id: string;
  number: number;
  state: 'draft' | 'published';
  name: string;
  description: string;
  instructions: string | null;
  files: { path: string; sizeBytes: number; sha256: string }[];
}
interface Skill {
  id: string;
  name: string;
  description: string;
  placement: 'space' | 'agent' | 'global';
  spaceId: string | null;
  agentId: string | null;
  source: 'CUSTOM' | 'DEFAULT' | 'MARKETPLACE';
  provider: string | null;
  sourceId: string | null;
  creatorType: 'PLATFORM' | 'USER';
  creatorId: string | null;
  activeVersionId: string | null;
  draftVersionId: string | null;
  marketplace: 'unlisted' | 'listed' | 'archived';
  versions?: SkillVersion[];
}
interface ErrorBody {
  error: { code: string; message: string; type: string; param?: string };
}
interface Turn {
  conversationId: string;
  message: { id: string; content: string; status: 'complete' | 'incomplete' };
}
interface Provenance {
  contextProviders: string[];
  contextItems?: { kind: string; id: string; version: number; versionId?: string }[];
  toolCalls: { name: string; arguments: string | null; ok: boolean }[];
}

const LLM = `${CORE}/llm`;
const S = `${CORE}/skills`;
const OFFLINE = 'Offline stand-in answer (no language model was called), following the skill ';

/** A Skill name (the Agent Skills format: lowercase letters, digits, hyphens), unique to this run. */
const slug = (prefix: string) => `${prefix}-${Math.random().toString(36).slice(2, 10).replace(/\d/g, 'x')}`;

const skillMd = (front: string, body: string) => `---\n${front}\n---\n\n${body}\n`;

/** A zip of `files` (text, or bytes with zip attributes). */
const zip = (files: Record<string, string | Zippable[string]>, level: 0 | 6 = 6): Uint8Array =>
  zipSync(
    Object.fromEntries(
      Object.entries(files).map(([path, content]) => [
        path,
        typeof content === 'string' ? strToU8(content) : content,
      ]),
    ),
    { level },
  );

describe('Agent Skills (e2e)', () => {
  let api: TestApi;
  let admin: Client;
  let spaceId: string;

  beforeAll(async () => {
    api = await startTestApi();
    admin = client(api.url);
    spaceId = await createSpace();
  }, 60_000);
  afterAll(async () => {
    await api.close();
    expect(api.logs()).not.toContain('unhandled error');
  });

  async function createSpace(as: Client = admin): Promise<string> {
    const reply = await as.post(`${CORE}/spaces`, { name: uniqueName('Skills') });
    expect(reply.status).toBe(201);
    return reply.body.id as string;
  }
  async function createAgent(space = spaceId, as: Client = admin): Promise<string> {
    const reply = await as.post(`${CORE}/agents`, {
      spaceId: space,
      name: uniqueName('Agent'),
      knowledgeEnabled: false,
    });
    expect(reply.status).toBe(201);
    return reply.body.id as string;
  }
  /**
   * A non-admin key of a new user, that may use these Agents ('all' by default: it then sees, read-only, every Space
   * holding a non-personal Agent; with none, it sees only the Spaces it creates).
   */
  const stranger = async (agents: 'all' | string[] = 'all', email = `${slug('stranger')}@example.com`) => {
    const reply = await admin.post<{ key: string; ownerUserId: string }>(`${CORE}/api-keys`, {
      name: uniqueName('key'),
      owner: { email },
      agents,
    });
    expect(reply.status).toBe(201);
    return { as: client(api.url, reply.body.key), key: reply.body.key, userId: reply.body.ownerUserId };
  };
  /** multipart/form-data to an upload route: the fields, then `file`. */
  const upload = async (
    path: string,
    file: { name: string; bytes: Uint8Array | string },
    fields: Record<string, string> = {},
    method: 'POST' | 'PUT' = 'POST',
    key = ADMIN_KEY,
  ) => {
    const form = new FormData();
    for (const [name, value] of Object.entries(fields)) form.append(name, value);
    const bytes = typeof file.bytes === 'string' ? strToU8(file.bytes) : file.bytes;
    form.append('file', new Blob([new Uint8Array(bytes)]), file.name);
    const response = await fetch(`${api.url}${path}`, { method, headers: { 'x-api-key': key }, body: form });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : null) as Skill & ErrorBody };
  };
  const createSkill = (target: Json, name: string, extra: Json = {}, as: Client = admin) =>
    as.post<Skill & ErrorBody>(S, {
      ...target,
      name,
      description: 'Writes release notes from merged pull requests.',
      instructions: 'List every merged pull request under a heading of its kind.',
      publish: true,
      ...extra,
    });
  const skillsOf = async (query: string, as: Client = admin) => {
    const reply = await as.get<{ data: Skill[] }>(`${S}?${query}`);
    expect(reply.status).toBe(200);
    return reply.body.data;
  };
  /** A turn of a new conversation, and its provenance. */
  const ask = async (agentId: string, message: string, as: Client = admin) => {
    const turn = await as.post<Turn>(`${LLM}/${agentId}/conversation`, { message });
    expect(turn.status).toBe(201);
    expect(turn.body.message.status).toBe('complete');
    const provenance = await as.get<Provenance>(
      `${LLM}/${agentId}/conversation/${turn.body.conversationId}/messages/${turn.body.message.id}/provenance`,
    );
    expect(provenance.status).toBe(200);
    const skills = (provenance.body.contextItems ?? []).filter((item) => item.kind === 'skill');
    return {
      content: turn.body.message.content,
      skills,
      tools: provenance.body.toolCalls.map((call) => call.name),
      toolCalls: provenance.body.toolCalls,
    };
  };

  it('follows a zip uploaded to a Space; drafts stay out until published; rollback sets version 1 back', async () => {
    const name = slug('expense-report');
    const bundle = zip({
      'SKILL.md': skillMd(
        `name: ${name}\ndescription: Files an expense report from receipts.`,
        '# Expense report\n\nCollect every receipt and total them by category. Then flag anything over the policy.',
      ),
      'references/policy.md': 'Meals are capped at 40 EUR a day.\nTaxis need a receipt.',
      'rates.csv': 'category,limit\nmeal,40\n',
    });
    const created = await upload(
      `${S}/upload`,
      { name: 'expense.zip', bytes: bundle },
      { spaceId, publish: 'true' },
    );
    expect(created.status).toBe(201);
    const skill = created.body;
    expect(skill).toMatchObject({
      name,
      description: 'Files an expense report from receipts.',
      placement: 'space',
      spaceId,
      agentId: null,
      source: 'CUSTOM',
      creatorType: 'USER',
      draftVersionId: null,
      marketplace: 'unlisted',
    });
    expect(skill.versions!.map((version) => [version.number, version.state, version.id])).toEqual([
      [1, 'published', skill.activeVersionId],
    ]);
    expect(skill.versions![0]!.files.map((file) => file.path).sort()).toEqual([
      'rates.csv',
      'references/policy.md',
    ]);
    const v1 = skill.activeVersionId!;

    const agentId = await createAgent();
    const listed = await skillsOf(`agentId=${agentId}`);
    expect(listed.map((entry) => entry.id)).toContain(skill.id);

    // Named: loaded (version 1) and followed.
    const first = await ask(agentId, `Please use the ${name} skill for my taxi receipt from Monday.`);
    expect(first.content).toBe(
      `${OFFLINE}"${name}" (version 1): Collect every receipt and total them by category.`,
    );
    // Provenance names the version by its number and by the id every route uses.
    expect(first.skills).toEqual([{ kind: 'skill', id: skill.id, version: 1, versionId: v1 }]);
    expect(first.tools).toEqual(['load_skill']);
    expect(first.toolCalls[0]).toMatchObject({ ok: true, arguments: JSON.stringify({ name }) });

    // A reference file named: read too.
    const withFile = await ask(agentId, `Use the ${name} skill and check policy.md for my dinner receipt.`);
    expect(withFile.content).toContain(`following the skill "${name}" (version 1): Collect every receipt`);
    expect(withFile.content).toContain(
      'Reference file references/policy.md: Meals are capped at 40 EUR a day.',
    );
    expect(withFile.skills).toEqual([{ kind: 'skill', id: skill.id, version: 1, versionId: v1 }]);
    expect(withFile.tools).toEqual(['load_skill', 'read_skill_file']);
    expect(withFile.toolCalls.every((call) => call.ok)).toBe(true);
    expect(withFile.toolCalls[1]!.arguments).toContain('policy.md');

    // A draft: the live version does not change.
    const drafted = await admin.put<Skill>(`${S}/${skill.id}`, {
      instructions: 'Reject every receipt older than 90 days. Then total the rest.',
    });
    expect(drafted.status).toBe(200);
    expect(drafted.body.activeVersionId).toBe(v1);
    const v2 = drafted.body.draftVersionId!;
    expect(v2).toEqual(expect.any(String));
    expect(drafted.body.versions!.map((version) => [version.number, version.state])).toEqual([
      [1, 'published'],
      [2, 'draft'],
    ]);
    // The draft keeps the reference files of the version it was made from.
    expect(drafted.body.versions![1]!.files.map((file) => file.path).sort()).toEqual([
      'rates.csv',
      'references/policy.md',
    ]);
    const whileDraft = await ask(agentId, `Use the ${name} skill for my taxi receipt.`);
    expect(whileDraft.content).toContain(`"${name}" (version 1): Collect every receipt`);
    expect(whileDraft.skills).toEqual([{ kind: 'skill', id: skill.id, version: 1, versionId: v1 }]);

    // Published: version 2 is loaded.
    const published = await admin.post<Skill>(`${S}/${skill.id}/publish`);
    expect(published.status).toBe(200);
    expect([published.body.activeVersionId, published.body.draftVersionId]).toEqual([v2, null]);
    const afterPublish = await ask(agentId, `Use the ${name} skill for my taxi receipt.`);
    expect(afterPublish.content).toBe(
      `${OFFLINE}"${name}" (version 2): Reject every receipt older than 90 days.`,
    );
    expect(afterPublish.skills).toEqual([{ kind: 'skill', id: skill.id, version: 2, versionId: v2 }]);
    const again = await admin.post<ErrorBody>(`${S}/${skill.id}/publish`);
    expect([again.status, again.body.error.code]).toEqual([409, 'no_draft']);

    // Rollback to version 1.
    const rolled = await admin.put<Skill>(`${S}/${skill.id}/active-version`, { versionId: v1 });
    expect(rolled.status).toBe(200);
    expect(rolled.body.activeVersionId).toBe(v1);
    const afterRollback = await ask(agentId, `Use the ${name} skill for my taxi receipt.`);
    expect(afterRollback.content).toContain(`"${name}" (version 1): Collect every receipt`);
    expect(afterRollback.skills).toEqual([{ kind: 'skill', id: skill.id, version: 1, versionId: v1 }]);

    // The Skill lists its versions with their states; one version has its instructions.
    const got = await admin.get<Skill>(`${S}/${skill.id}`);
    expect(got.status).toBe(200);
    expect(got.body.activeVersionId).toBe(v1);
    expect(got.body.versions!.map((version) => [version.id, version.number, version.state])).toEqual([
      [v1, 1, 'published'],
      [v2, 2, 'published'],
    ]);
    expect(got.body.versions!.every((version) => version.instructions === null)).toBe(true);
    const version2 = await admin.get<SkillVersion>(`${S}/${skill.id}/versions/${v2}`);
    expect(version2.status).toBe(200);
    expect(version2.body).toMatchObject({
      id: v2,
      number: 2,
      state: 'published',
      instructions: 'Reject every receipt older than 90 days. Then total the rest.',
    });
    const unknownVersion = await admin.get<ErrorBody>(`${S}/${skill.id}/versions/skv_missing`);
    expect(unknownVersion.status).toBe(404);
    // Another Skill's version is no version of this one (whatever its name).
    const other = await createSkill({ spaceId }, slug('other'));
    for (const versionId of [other.body.activeVersionId, 'skv_missing']) {
      const foreign = await admin.put<ErrorBody>(`${S}/${skill.id}/active-version`, { versionId });
      expect([foreign.status, foreign.body.error.code]).toEqual([404, 'skill_version_not_found']);
    }
    expect((await admin.get<Skill>(`${S}/${skill.id}`)).body.activeVersionId).toBe(v1);
  });

  it('keeps one set of names for a Space and its Agents: 409 skill_name_taken either way, nothing created', async () => {
    const space = await createSpace();
    const agentId = await createAgent(space);

    const first = slug('release-notes');
    expect((await createSkill({ spaceId: space }, first)).status).toBe(201);
    const clash = await createSkill({ agentId }, first);
    expect([clash.status, clash.body.error.code]).toEqual([409, 'skill_name_taken']);
    expect((await skillsOf(`agentId=${agentId}`)).filter((skill) => skill.name === first)).toHaveLength(1);
    expect((await skillsOf(`spaceId=${space}`)).map((skill) => skill.name)).toEqual([first]);

    const second = slug('changelog');
    const own = await createSkill({ agentId }, second);
    expect(own.status).toBe(201);
    expect(own.body).toMatchObject({ placement: 'agent', agentId, spaceId: null });
    const clashBack = await createSkill({ spaceId: space }, second);
    expect([clashBack.status, clashBack.body.error.code]).toEqual([409, 'skill_name_taken']);
    // The same through an upload.
    const uploaded = await upload(
      `${S}/upload`,
      { name: 'SKILL.md', bytes: skillMd(`name: ${second}\ndescription: Writes a changelog.`, 'Write it.') },
      { spaceId: space },
    );
    expect([uploaded.status, uploaded.body.error.code]).toEqual([409, 'skill_name_taken']);
    expect((await skillsOf(`spaceId=${space}`)).map((skill) => skill.name)).toEqual([first]);
    expect((await skillsOf(`agentId=${agentId}`)).filter((skill) => skill.name === second)).toHaveLength(1);

    // Another Space may use either name.
    const elsewhere = await createSpace();
    expect((await createSkill({ spaceId: elsewhere }, first)).status).toBe(201);
  });

  it("refuses a DEFAULT Skill's name for an Agent or a Space Skill, and a move that would duplicate a name", async () => {
    const space = await createSpace();
    const agentId = await createAgent(space);
    // Every Agent has the DEFAULT Skills: an own `draft-email` would be a second one.
    for (const [target, name] of [
      [{ agentId }, 'draft-email'],
      [{ spaceId: space }, 'meeting-notes'],
    ] as const) {
      const clash = await createSkill(target, name);
      expect([clash.status, clash.body.error.code]).toEqual([409, 'skill_name_taken']);
    }
    // Nor by a rename going live.
    const renamed = await createSkill({ agentId }, slug('mail-writer'));
    expect(renamed.status).toBe(201);
    expect((await admin.put(`${S}/${renamed.body.id}`, { name: 'draft-email' })).status).toBe(200);
    const goingLive = await admin.post<ErrorBody>(`${S}/${renamed.body.id}/publish`);
    expect([goingLive.status, goingLive.body.error.code]).toEqual([409, 'skill_name_taken']);
    expect(
      (await skillsOf(`agentId=${agentId}`)).filter((skill) => skill.name === 'draft-email'),
    ).toHaveLength(1);

    // An Agent with a Skill named as one of another Space's does not move there; elsewhere it does.
    const shared = slug('triage');
    expect((await createSkill({ agentId }, shared)).status).toBe(201);
    const target = await createSpace();
    expect((await createSkill({ spaceId: target }, shared)).status).toBe(201);
    const moved = await admin.put<ErrorBody>(`${CORE}/agents/${agentId}`, { spaceId: target });
    expect([moved.status, moved.body.error.code, moved.body.error.param]).toEqual([
      409,
      'skill_name_taken',
      'spaceId',
    ]);
    expect(moved.body.error.message).toContain(shared);
    expect((await admin.get<{ spaceId: string }>(`${CORE}/agents/${agentId}`)).body.spaceId).toBe(space);
    expect((await skillsOf(`agentId=${agentId}`)).filter((skill) => skill.name === shared)).toHaveLength(1);
    const free = await createSpace();
    const movedFree = await admin.put<{ spaceId: string }>(`${CORE}/agents/${agentId}`, { spaceId: free });
    expect([movedFree.status, movedFree.body.spaceId]).toEqual([200, free]);
  });

  it('refuses the malicious zips with their reason, stores nothing, and stays up', async () => {
    const space = await createSpace();
    const good = skillMd('name: safe-skill\ndescription: Does safe things.', 'Do safe things.');
    const cases: [string, Uint8Array, string, string?][] = [
      ['path traversal', zip({ 'SKILL.md': good, '../evil.md': 'x' }), 'zip_path_escapes', '../evil.md'],
      ['absolute path', zip({ 'SKILL.md': good, '/etc/passwd': 'x' }), 'zip_path_escapes', '/etc/passwd'],
      [
        'symlink',
        zip({
          'SKILL.md': good,
          'link.md': [strToU8('/etc/passwd'), { os: 3, attrs: (0o120777 << 16) >>> 0 }],
        }),
        'zip_symlink',
        'link.md',
      ],
      [
        'bomb',
        zip({ 'SKILL.md': good, 'zeros.txt': new Uint8Array(40 * 1024 * 1024) }),
        'zip_bomb',
        'zeros.txt',
      ],
      [
        '10,000 files',
        zip(
          {
            'SKILL.md': good,
            ...Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`f/${i}.md`, 'x'])),
          },
          0,
        ),
        'zip_too_many_files',
      ],
      ['missing SKILL.md', zip({ 'README.md': good, 'notes.md': 'x' }), 'zip_missing_skill_md'],
      [
        'unknown frontmatter key',
        zip({ 'SKILL.md': skillMd('name: safe-skill\ndescription: Does it.\nauthor: mallory', 'Do it.') }),
        'unknown_frontmatter_key',
        'author',
      ],
      ['missing name', zip({ 'SKILL.md': skillMd('description: Does it.', 'Do it.') }), 'invalid_name'],
    ];
    for (const [label, bytes, code, named] of cases) {
      const reply = await upload(
        `${S}/upload`,
        { name: 'bundle.zip', bytes },
        { spaceId: space, publish: 'true' },
      );
      expect([label, reply.status, reply.body.error?.code]).toEqual([label, 400, code]);
      expect(reply.body.error.param).toBe('file');
      if (named) expect(reply.body.error.message).toContain(named);
    }
    expect(await skillsOf(`spaceId=${space}`)).toEqual([]);
    expect((await fetch(`${api.url}/health/live`)).status).toBe(200);

    // A draft from a bad bundle is refused too, and leaves the Skill as it was.
    const kept = await createSkill({ spaceId: space }, slug('kept'));
    expect(kept.status).toBe(201);
    const badDraft = await upload(
      `${S}/${kept.body.id}/upload`,
      { name: 'b.zip', bytes: cases[0]![1] },
      {},
      'PUT',
    );
    expect([badDraft.status, badDraft.body.error.code]).toEqual([400, 'zip_path_escapes']);
    expect((await admin.get<Skill>(`${S}/${kept.body.id}`)).body.versions).toHaveLength(1);

    // A .md with frontmatter is a Skill of its own; a .txt is not a Skill file.
    const name = slug('meeting-agenda');
    const md = await upload(
      `${S}/upload`,
      {
        name: 'agenda.md',
        bytes: skillMd(
          `name: ${name}\ndescription: Drafts a meeting agenda.\nlicense: MIT`,
          'List the topics.',
        ),
      },
      { spaceId: space },
    );
    expect(md.status).toBe(201);
    expect(md.body).toMatchObject({ name, description: 'Drafts a meeting agenda.', activeVersionId: null });
    expect(md.body.versions!.map((version) => [version.state, version.files])).toEqual([['draft', []]]);
    const txt = await upload(
      `${S}/upload`,
      { name: 'notes.txt', bytes: 'just some notes' },
      { spaceId: space },
    );
    expect([txt.status, txt.body.error.code]).toEqual([400, 'unsupported_skill_file']);
    expect((await skillsOf(`spaceId=${space}`)).map((skill) => skill.name).sort()).toEqual(
      [kept.body.name, name].sort(),
    );
  }, 60_000);

  it('lists a Skill on the marketplace, installs, uninstalls and archives it (admins only list)', async () => {
    const name = slug('incident-review');
    const original = await createSkill({ spaceId }, name, {
      description: 'Writes a blameless incident review.',
      instructions: 'Start with the timeline of the incident. Then the causes.',
    });
    expect(original.status).toBe(201);
    const id = original.body.id;
    const { as: nonAdmin } = await stranger();
    const refused = await nonAdmin.post<ErrorBody>(`${S}/${id}/marketplace`);
    expect(refused.status).toBe(403);

    const listed = await admin.post<Skill>(`${S}/${id}/marketplace`);
    expect(listed.status).toBe(200);
    expect(listed.body.marketplace).toBe('listed');
    const market = await admin.get<{ data: Skill[] }>(`${CORE}/marketplace/skills`);
    expect(market.status).toBe(200);
    expect(market.body.data.map((skill) => skill.id)).toContain(id);
    // A listed Skill is not deleted before it is archived.
    const listedDelete = await admin.delete<ErrorBody>(`${S}/${id}`);
    expect([listedDelete.status, listedDelete.body.error.code]).toEqual([409, 'skill_listed_on_marketplace']);

    const otherSpace = await createSpace();
    const installed = await admin.post<Skill>(`${CORE}/marketplace/skills/${id}/install`, {
      spaceId: otherSpace,
    });
    expect(installed.status).toBe(201);
    expect(installed.body).toMatchObject({
      name,
      placement: 'space',
      spaceId: otherSpace,
      source: 'MARKETPLACE',
      provider: expect.any(String),
      sourceId: id,
    });
    expect(installed.body.id).not.toBe(id);
    expect(installed.body.versions!.map((version) => [version.number, version.state])).toEqual([
      [1, 'published'],
    ]);
    const twice = await admin.post<ErrorBody>(`${CORE}/marketplace/skills/${id}/install`, {
      spaceId: otherSpace,
    });
    expect([twice.status, twice.body.error.code]).toEqual([409, 'skill_name_taken']);

    const agentThere = await createAgent(otherSpace);
    const used = await ask(agentThere, `Use the ${name} skill for the outage of last night.`);
    expect(used.content).toBe(`${OFFLINE}"${name}" (version 1): Start with the timeline of the incident.`);
    expect(used.skills).toEqual([
      { kind: 'skill', id: installed.body.id, version: 1, versionId: installed.body.activeVersionId },
    ]);

    // Uninstalled: gone there; the original stays, and still loads (its content was shared, not purged).
    expect((await admin.delete(`${S}/${installed.body.id}`)).status).toBe(204);
    expect((await admin.get(`${S}/${installed.body.id}`)).status).toBe(404);
    expect(await skillsOf(`spaceId=${otherSpace}`)).toEqual([]);
    expect((await admin.get(`${S}/${id}`)).status).toBe(200);
    const originalUsed = await ask(
      await createAgent(),
      `Use the ${name} skill for the outage of last night.`,
    );
    expect(originalUsed.content).toBe(
      `${OFFLINE}"${name}" (version 1): Start with the timeline of the incident.`,
    );
    expect(originalUsed.skills).toEqual([
      { kind: 'skill', id, version: 1, versionId: original.body.activeVersionId },
    ]);
    const notUsed = await ask(agentThere, `Use the ${name} skill for the outage of last night.`);
    expect(notUsed.content).not.toContain(OFFLINE);
    expect(notUsed.skills).toEqual([]);

    // Archived: no longer listed nor installable; a non-admin cannot archive.
    expect((await nonAdmin.delete(`${CORE}/marketplace/skills/${id}`)).status).toBe(403);
    const archived = await admin.delete<Skill>(`${CORE}/marketplace/skills/${id}`);
    expect(archived.status).toBe(200);
    expect(archived.body.marketplace).toBe('archived');
    const after = await admin.get<{ data: Skill[] }>(`${CORE}/marketplace/skills`);
    expect(after.body.data.map((skill) => skill.id)).not.toContain(id);
    const late = await admin.post<ErrorBody>(`${CORE}/marketplace/skills/${id}/install`, {
      spaceId: otherSpace,
    });
    expect([late.status, late.body.error.code]).toEqual([409, 'skill_not_listed']);
    expect(await skillsOf(`spaceId=${otherSpace}`)).toEqual([]);

    // Archived entries: admins list them and restore one; nobody else does either.
    const archivedList = await admin.get<{ data: Skill[] }>(`${CORE}/marketplace/skills?archived=true`);
    expect(archivedList.status).toBe(200);
    expect(archivedList.body.data.find((skill) => skill.id === id)).toMatchObject({
      marketplace: 'archived',
    });
    expect(archivedList.body.data.every((skill) => skill.marketplace === 'archived')).toBe(true);
    const everything = await admin.get<{ data: Skill[] }>(`${CORE}/marketplace/skills?archived=all`);
    expect(everything.body.data.map((skill) => skill.id)).toContain(id);
    const notAdmin = await nonAdmin.get<ErrorBody>(`${CORE}/marketplace/skills?archived=true`);
    expect([notAdmin.status, notAdmin.body.error.code]).toEqual([403, 'marketplace_admin_only']);
    const badFlag = await admin.get<ErrorBody>(`${CORE}/marketplace/skills?archived=maybe`);
    expect([badFlag.status, badFlag.body.error.param]).toEqual([400, 'archived']);
    const restoreRefused = await nonAdmin.post<ErrorBody>(`${CORE}/marketplace/skills/${id}/restore`);
    expect([restoreRefused.status, restoreRefused.body.error.code]).toEqual([403, 'marketplace_admin_only']);
    const restored = await admin.post<Skill>(`${CORE}/marketplace/skills/${id}/restore`);
    expect([restored.status, restored.body.marketplace]).toEqual([200, 'listed']);
    expect((await admin.post<Skill>(`${CORE}/marketplace/skills/${id}/restore`)).status).toBe(200);
    const relisted = await admin.get<{ data: Skill[] }>(`${CORE}/marketplace/skills`);
    expect(relisted.body.data.map((skill) => skill.id)).toContain(id);
    const reinstalled = await admin.post<Skill>(`${CORE}/marketplace/skills/${id}/install`, {
      spaceId: otherSpace,
    });
    expect([reinstalled.status, reinstalled.body.sourceId]).toEqual([201, id]);
    // A Skill never listed has nothing to restore.
    const never = await createSkill({ spaceId }, slug('never-listed'));
    const unlisted = await admin.post<ErrorBody>(`${CORE}/marketplace/skills/${never.body.id}/restore`);
    expect([unlisted.status, unlisted.body.error.code]).toEqual([409, 'skill_not_archived']);
    expect((await admin.post(`${CORE}/marketplace/skills/skl_missing/restore`)).status).toBe(404);
  });

  it('has the 3 DEFAULT Skills, and a fresh Agent loads draft-email when asked for an email', async () => {
    const defaults = await skillsOf('');
    expect(defaults.map((skill) => skill.name).sort()).toEqual([
      'draft-email',
      'meeting-notes',
      'summarize-document',
    ]);
    for (const skill of defaults)
      expect(skill).toMatchObject({
        placement: 'global',
        source: 'DEFAULT',
        creatorType: 'PLATFORM',
        activeVersionId: expect.any(String),
      });
    const draftEmail = defaults.find((skill) => skill.name === 'draft-email')!;
    // Every user sees them.
    expect((await skillsOf('', (await stranger()).as)).map((skill) => skill.id).sort()).toEqual(
      defaults.map((skill) => skill.id).sort(),
    );

    const agentId = await createAgent(await createSpace());
    expect((await skillsOf(`agentId=${agentId}`)).map((skill) => skill.name).sort()).toEqual([
      'draft-email',
      'meeting-notes',
      'summarize-document',
    ]);
    const asked = await ask(agentId, 'draft an email to a customer about the delay');
    expect(asked.content).toBe(`${OFFLINE}"draft-email" (version 1): Draft the email the user describes.`);
    expect(asked.skills).toEqual([
      { kind: 'skill', id: draftEmail.id, version: 1, versionId: draftEmail.activeVersionId },
    ]);
    expect(asked.tools).toEqual(['load_skill']);
    // Only an admin changes them.
    const changed = await (
      await stranger()
    ).as.put<ErrorBody>(`${S}/${draftEmail.id}`, { instructions: 'Be rude.' });
    expect(changed.status).toBe(403);
  });

  it("hides a Space's Skills from a key that cannot see the Space, and lets it create none there", async () => {
    const name = slug('secret-recipe');
    const skill = await createSkill({ spaceId }, name);
    expect(skill.status).toBe(201);
    const id = skill.body.id;
    const version = skill.body.activeVersionId!;
    const agentId = await createAgent();
    const { as: other, key: otherKey } = await stranger([]);

    for (const reply of [
      await other.get<ErrorBody>(`${S}/${id}`),
      await other.get<ErrorBody>(`${S}/${id}/versions/${version}`),
      await other.put<ErrorBody>(`${S}/${id}`, { instructions: 'Mine now.' }),
      await other.post<ErrorBody>(`${S}/${id}/publish`),
      await other.put<ErrorBody>(`${S}/${id}/active-version`, { versionId: version }),
      await other.delete<ErrorBody>(`${S}/${id}`),
    ]) {
      expect(reply.status).toBe(404);
      expect(reply.body.error.code).toBe('skill_not_found');
      expect(JSON.stringify(reply.body)).not.toContain(name);
    }
    expect((await other.get(`${S}?spaceId=${spaceId}`)).status).toBe(404);
    for (const reply of [
      await createSkill({ spaceId }, slug('intruder'), {}, other),
      await createSkill({ agentId }, slug('intruder'), {}, other),
      await upload(
        `${S}/upload`,
        { name: 'SKILL.md', bytes: skillMd('name: intruder\ndescription: Intrudes.', 'Intrude.') },
        { spaceId },
        'POST',
        otherKey,
      ),
    ])
      expect([403, 404]).toContain(reply.status);
    expect(
      (await skillsOf(`spaceId=${spaceId}`)).filter((entry) => entry.name.startsWith('intruder-')),
    ).toEqual([]);
    // A key granted the Space's Agents, of a member of the Space (a key acts as its user), sees the Space
    // (read-only): it reads the Skill, and changes nothing.
    const readerEmail = `${slug('reader')}@example.com`;
    const readerId = await registeredPerson(api.url, readerEmail);
    expect(
      (await admin.post(`${CORE}/spaces/${spaceId}/members`, { userId: readerId, role: 'member' })).status,
    ).toBe(201);
    const { as: reader } = await stranger([agentId], readerEmail);
    expect((await reader.get<Skill>(`${S}/${id}`)).body.id).toBe(id);
    for (const reply of [
      await reader.put<ErrorBody>(`${S}/${id}`, { instructions: 'Mine now.' }),
      await reader.put<ErrorBody>(`${S}/${id}/active-version`, { versionId: version }),
      await reader.delete<ErrorBody>(`${S}/${id}`),
      await createSkill({ spaceId }, slug('intruder'), {}, reader),
      await createSkill({ agentId }, slug('intruder'), {}, reader),
    ])
      expect(reply.status).toBe(403);
    // Unchanged.
    expect((await admin.get<Skill>(`${S}/${id}`)).body.versions).toHaveLength(1);
    // Not even an admin places a Skill where nothing is.
    const nowhere = [
      await createSkill({ spaceId: 'spc_missing' }, slug('orphan')),
      await createSkill({ agentId: 'agt_missing' }, slug('orphan')),
      await upload(
        `${S}/upload`,
        { name: 'SKILL.md', bytes: skillMd(`name: ${slug('orphan')}\ndescription: Lost.`, 'Stay lost.') },
        { spaceId: 'spc_missing', publish: 'true' },
      ),
    ];
    expect(nowhere.map((reply) => [reply.status, reply.body.error?.code])).toEqual([
      [404, 'space_not_found'],
      [404, 'agent_not_found'],
      [404, 'space_not_found'],
    ]);
    expect((await admin.get(`${S}?spaceId=spc_missing`)).status).toBe(404);
    // In a Space of its own, it may.
    const own = await createSpace(other);
    expect((await createSkill({ spaceId: own }, slug('own'), {}, other)).status).toBe(201);
  });

  it('deletes a Skill for good: 204, then 404, and its Agent no longer has it', async () => {
    const agentId = await createAgent();
    const name = slug('onboarding');
    const skill = await createSkill({ agentId }, name, {
      description: 'Welcomes a new colleague.',
      instructions: 'Greet them by name. Then list their first tasks.',
    });
    expect(skill.status).toBe(201);
    expect((await skillsOf(`agentId=${agentId}`)).map((entry) => entry.id)).toContain(skill.body.id);
    const before = await ask(agentId, `Use the ${name} skill for Ada.`);
    expect(before.skills).toEqual([
      { kind: 'skill', id: skill.body.id, version: 1, versionId: skill.body.activeVersionId },
    ]);

    expect((await admin.delete(`${S}/${skill.body.id}`)).status).toBe(204);
    const gone = await admin.get<ErrorBody>(`${S}/${skill.body.id}`);
    expect([gone.status, gone.body.error.code]).toEqual([404, 'skill_not_found']);
    expect((await admin.get(`${S}/${skill.body.id}/versions/${skill.body.activeVersionId}`)).status).toBe(
      404,
    );
    expect((await admin.delete(`${S}/${skill.body.id}`)).status).toBe(404);
    expect((await skillsOf(`agentId=${agentId}`)).map((entry) => entry.id)).not.toContain(skill.body.id);
    const after = await ask(agentId, `Use the ${name} skill for Ada.`);
    expect(after.skills).toEqual([]);
    expect(after.tools).not.toContain('load_skill');
    expect(after.content).not.toContain(OFFLINE);
    // The name is free again.
    expect((await createSkill({ agentId }, name)).status).toBe(201);
  });
});
