// Space members and roles over HTTP (issue 22): three people in a Space as owner, editor and member, each by their
// own key, and a person outside it. What each role may do, the membership rules (nobody grants above their own role,
// nobody changes their own, the last owner stays), removal ending access with the answer, and who may create Spaces.
import { EVENT_STORE, type EventStore } from '#event-store';
import { waitUntil } from '#testing/fixtures';
import { client, CORE, startTestApi, uniqueName, type TestApi, registeredPerson } from './support/api.js';

type ErrorBody = { error: { code: string } };

describe('Space members and roles (e2e)', () => {
  let api: TestApi;
  const admin = () => client(api.url);

  beforeAll(async () => {
    api = await startTestApi();
  });
  afterAll(() => api.close());

  const person = async (label: string) => {
    const reply = await admin().post<{ key: string; ownerUserId: string }>(`${CORE}/api-keys`, {
      name: uniqueName(label),
      owner: { email: `${label}-${Date.now()}@example.com` },
      agents: 'all',
    });
    expect(reply.status).toBe(201);
    return { as: client(api.url, reply.body.key), userId: reply.body.ownerUserId };
  };
  const code = (reply: { status: number; body: unknown }) => [
    reply.status,
    (reply.body as ErrorBody | null)?.error?.code,
  ];

  it('owner, editor and member do what their role allows; the membership rules hold; removal ends access at once', async () => {
    const [owner, editor, member, outsider, spare] = [
      await person('owner'),
      await person('editor'),
      await person('member'),
      await person('outsider'),
      await person('spare'),
    ];
    const space = await owner.as.post<{ id: string }>(`${CORE}/spaces`, { name: uniqueName('Team') });
    expect(space.status).toBe(201);
    const spaceId = space.body.id;
    const members = `${CORE}/spaces/${spaceId}/members`;
    const agent = await owner.as.post<{ id: string }>(`${CORE}/agents`, { spaceId, name: 'Team agent' });
    expect(agent.status).toBe(201);
    const agentPath = `${CORE}/agents/${agent.body.id}`;

    // The creator is the owner; they add an editor and a member by user id.
    expect((await owner.as.post(members, { userId: editor.userId, role: 'editor' })).body).toMatchObject({
      spaceId,
      userId: editor.userId,
      role: 'editor',
    });
    expect((await owner.as.post(members, { userId: member.userId, role: 'member' })).status).toBe(201);
    const listed = await member.as.get<{ data: { userId: string; role: string }[] }>(members);
    expect(listed.body.data.map(({ userId, role }) => [userId, role])).toEqual([
      [owner.userId, 'owner'],
      [editor.userId, 'editor'],
      [member.userId, 'member'],
    ]);
    expect((await owner.as.post(members, { userId: 'usr_nobody', role: 'member' })).status).toBe(400);

    // A member uses the Agent and reads the Space; managing the Agent or the members is not theirs.
    expect((await member.as.get(agentPath)).status).toBe(200);
    expect((await member.as.get(`${CORE}/spaces/${spaceId}`)).status).toBe(200);
    expect(code(await member.as.put(agentPath, { name: 'mine' }))).toEqual([403, 'space_change_denied']);
    expect(code(await member.as.delete(agentPath))).toEqual([403, 'space_change_denied']);
    expect(code(await member.as.post(members, { userId: spare.userId, role: 'member' }))).toEqual([
      403,
      'space_member_change_denied',
    ]);
    expect(code(await member.as.delete(`${members}/${editor.userId}`))).toEqual([
      403,
      'space_member_change_denied',
    ]);
    expect(code(await member.as.patch(`${members}/${member.userId}`, { role: 'owner' }))).toEqual([
      403,
      'own_role_change_denied',
    ]);

    // An editor changes the Agent and adds members up to editor; never above their own role, nor their own role.
    expect((await editor.as.put(agentPath, { name: 'Renamed by the editor' })).status).toBe(200);
    expect(code(await editor.as.patch(`${CORE}/spaces/${spaceId}`, { name: 'Ours' }))).toEqual([
      403,
      'space_change_denied',
    ]);
    expect(code(await editor.as.post(members, { userId: spare.userId, role: 'owner' }))).toEqual([
      403,
      'role_above_own',
    ]);
    expect(code(await editor.as.patch(`${members}/${owner.userId}`, { role: 'member' }))).toEqual([
      403,
      'role_above_own',
    ]);
    expect(code(await editor.as.patch(`${members}/${editor.userId}`, { role: 'owner' }))).toEqual([
      403,
      'own_role_change_denied',
    ]);
    expect((await editor.as.post(members, { userId: spare.userId, role: 'member' })).status).toBe(201);

    // Moving the Agent needs editor in both Spaces: the editor is only a member of the other one.
    const other = await owner.as.post<{ id: string }>(`${CORE}/spaces`, { name: uniqueName('Other') });
    expect(
      (
        await owner.as.post(`${CORE}/spaces/${other.body.id}/members`, {
          userId: editor.userId,
          role: 'member',
        })
      ).status,
    ).toBe(201);
    expect(code(await editor.as.put(agentPath, { spaceId: other.body.id }))).toEqual([
      403,
      'space_change_denied',
    ]);

    // The prompt library: the editor creates and revises a prompt; the member reads it and its first version.
    const prompts = `${CORE}/spaces/${spaceId}/prompts`;
    const prompt = await editor.as.post<{ id: string; version: number }>(prompts, {
      title: 'Weekly report',
      text: 'Summarise the week.',
      tags: ['ops'],
    });
    expect(prompt.body).toMatchObject({ version: 1 });
    expect(
      (await editor.as.patch(`${prompts}/${prompt.body.id}`, { text: 'Summarise the week in three lines.' }))
        .body,
    ).toMatchObject({ version: 2, text: 'Summarise the week in three lines.' });
    expect((await member.as.get<{ data: { id: string }[] }>(prompts)).body.data.map((p) => p.id)).toEqual([
      prompt.body.id,
    ]);
    expect((await member.as.get(`${prompts}/${prompt.body.id}/versions/1`)).body).toMatchObject({
      version: 1,
      text: 'Summarise the week.',
    });
    expect(code(await member.as.post(prompts, { title: 'Mine', text: 'x' }))).toEqual([
      403,
      'space_change_denied',
    ]);
    expect(code(await member.as.delete(`${prompts}/${prompt.body.id}`))).toEqual([
      403,
      'space_change_denied',
    ]);
    expect((await outsider.as.get(prompts)).status).toBe(404);

    // Someone outside the Space neither sees it nor reaches its Agent.
    expect((await outsider.as.get(`${CORE}/spaces/${spaceId}`)).status).toBe(404);
    expect((await outsider.as.get(members)).status).toBe(404);
    expect((await outsider.as.get(agentPath)).status).toBe(403);
    const seen = await outsider.as.get<{ data: { id: string }[] }>(`${CORE}/spaces?limit=200`);
    expect(seen.body.data.map((entry) => entry.id)).not.toContain(spaceId);
    expect(code(await outsider.as.put(agentPath, { spaceId: other.body.id }))).toEqual([
      403,
      'agent_access_denied',
    ]);

    // The last owner neither leaves nor is demoted; with a second owner, they may be.
    expect(code(await owner.as.post(`${CORE}/spaces/${spaceId}/leave`))).toEqual([409, 'last_owner']);
    expect(code(await admin().patch(`${members}/${owner.userId}`, { role: 'editor' }))).toEqual([
      409,
      'last_owner',
    ]);
    expect((await owner.as.patch(`${members}/${editor.userId}`, { role: 'owner' })).status).toBe(200);
    expect((await editor.as.patch(`${members}/${owner.userId}`, { role: 'editor' })).body).toMatchObject({
      role: 'editor',
    });

    // Removing a member ends their access with the answer.
    expect((await editor.as.delete(`${members}/${member.userId}`)).status).toBe(204);
    expect(code(await member.as.get(agentPath))).toEqual([403, 'agent_access_denied']);
    expect((await member.as.get(`${CORE}/spaces/${spaceId}`)).status).toBe(404);
    expect((await editor.as.delete(`${members}/${member.userId}`)).status).toBe(404);

    // Leaving is everyone's.
    expect((await spare.as.post(`${CORE}/spaces/${spaceId}/leave`)).status).toBe(204);
    expect((await spare.as.get(`${CORE}/spaces/${spaceId}`)).status).toBe(404);
  });

  it('owners and editors find people to add by name or e-mail (member-candidates); members and outsiders see no directory; the list names every member', async () => {
    const [owner, editor, member, outsider] = [
      await person('cand-owner'),
      await person('cand-editor'),
      await person('cand-member'),
      await person('cand-outsider'),
    ];
    const tag = `findme${Date.now()}`;
    const wanted = await person(tag);
    // With the people directory closed (the default), people find whom they already share a Space with.
    const together = await wanted.as.post<{ id: string }>(`${CORE}/spaces`, { name: uniqueName('Together') });
    for (const who of [owner, editor])
      await wanted.as.post(`${CORE}/spaces/${together.body.id}/members`, {
        userId: who.userId,
        role: 'member',
      });
    const space = await owner.as.post<{ id: string }>(`${CORE}/spaces`, { name: uniqueName('Directory') });
    const spaceId = space.body.id;
    const members = `${CORE}/spaces/${spaceId}/members`;
    await owner.as.post(members, { userId: editor.userId, role: 'editor' });
    await owner.as.post(members, { userId: member.userId, role: 'member' });
    const candidates = (query: string) =>
      `${CORE}/spaces/${spaceId}/member-candidates?query=${encodeURIComponent(query)}`;
    type Found = { data: { id: string; name: string; email: string }[] };

    // Owner and editor find the person by part of the e-mail, in any case: id, name and e-mail only.
    for (const who of [owner, editor]) {
      const found = await who.as.get<Found>(candidates(tag.toUpperCase()));
      expect(found.status).toBe(200);
      expect(found.body.data).toEqual([
        {
          id: wanted.userId,
          name: expect.any(String) as string,
          email: expect.stringContaining(tag) as string,
        },
      ]);
      expect(Object.keys(found.body.data[0]!).sort()).toEqual(['email', 'id', 'name']);
    }
    // Members of the Space are no candidates.
    const self = await owner.as.get<Found>(candidates('cand-member'));
    expect(self.body.data.map((u) => u.id)).not.toContain(member.userId);
    // Deny by default: a member who may not add sees no directory; an outsider does not see the Space at all.
    expect(code(await member.as.get(candidates(tag)))).toEqual([403, 'space_member_change_denied']);
    expect((await outsider.as.get(candidates(tag))).status).toBe(404);
    // A bad query is a clear 400: too short, missing, a bad limit.
    for (const bad of [
      candidates('a'),
      `${CORE}/spaces/${spaceId}/member-candidates`,
      `${candidates(tag)}&limit=99`,
    ]) {
      const reply = await owner.as.get<ErrorBody>(bad);
      expect(reply.status).toBe(400);
      expect(reply.body.error.code).toEqual(expect.any(String));
    }
    // The list shows every member's name, to every member.
    const listed = await member.as.get<{ data: { userId: string; name: string | null }[] }>(members);
    expect(listed.body.data.every((m) => typeof m.name === 'string' && m.name.length > 0)).toBe(true);
  });

  it('member-candidates: only people the caller shares a Space with, unless an admin opens the directory (an event); admins find everyone', async () => {
    const owner = await person('directory-owner');
    const tag = `unshared${Date.now()}`;
    const stranger = await person(tag);
    const space = await owner.as.post<{ id: string }>(`${CORE}/spaces`, { name: uniqueName('Picker') });
    const candidates = `${CORE}/spaces/${space.body.id}/member-candidates?query=${tag}`;
    const found = async (as: ReturnType<typeof client>) =>
      (await as.get<{ data: { id: string }[] }>(candidates)).body.data.map((user) => user.id);
    const setting = `${CORE}/settings/people-directory`;
    expect((await admin().get(setting)).body).toEqual({ open: false, updatedAt: null });
    expect(await found(owner.as)).toEqual([]);
    expect(await found(admin())).toEqual([stranger.userId]);

    expect(code(await owner.as.put(setting, { open: true }))).toEqual([403, 'admin_required']);
    expect(code(await owner.as.get(setting))).toEqual([403, 'admin_required']);
    const opened = await admin().put<{ open: boolean; updatedAt: string }>(setting, { open: true });
    expect(opened.status).toBe(200);
    expect(opened.body.open).toBe(true);
    expect(await found(owner.as)).toEqual([stranger.userId]);
    const events = await api.app.get<EventStore>(EVENT_STORE).readAll();
    expect(events.filter((event) => event.type === 'PeopleDirectoryOpened')).toHaveLength(1);

    expect((await admin().put<{ open: boolean }>(setting, { open: false })).body.open).toBe(false);
    expect(await found(owner.as)).toEqual([]);
    expect(await found(admin())).toEqual([stranger.userId]);
  });

  it("a key's grant list narrows its user's rights: a listed Agent needs a role in its Space when the key is issued; removal cuts the key at once", async () => {
    const owner = await person('grant-owner');
    const space = await owner.as.post<{ id: string }>(`${CORE}/spaces`, { name: uniqueName('Granted') });
    const members = `${CORE}/spaces/${space.body.id}/members`;
    const agent = await owner.as.post<{ id: string }>(`${CORE}/agents`, {
      spaceId: space.body.id,
      name: 'G',
    });
    expect(agent.status).toBe(201);
    const agentPath = `${CORE}/agents/${agent.body.id}`;
    // An admin issues a key for someone, listing the Agent: a grant its user may not use (no role in the Agent's
    // Space, an unknown Agent) is refused when the key is issued, naming the Agent and why.
    const email = `listed-${Date.now()}@example.com`;
    const issue = (agents: string[]) =>
      admin().post<{
        key: string;
        ownerUserId: string;
        error: { code: string; message: string; param: string };
      }>(`${CORE}/api-keys`, { name: uniqueName('listed'), owner: { email }, agents });
    for (const [agentId, why] of [
      [agent.body.id, 'no role'],
      ['agt_unknown0000000000', 'no such Agent'],
    ] as const) {
      const refused = await issue([agentId]);
      expect([refused.status, refused.body.error.code, refused.body.error.param]).toEqual([
        400,
        'grant_unusable',
        'agents',
      ]);
      expect(refused.body.error.message).toContain(agentId);
      expect(refused.body.error.message).toContain(why);
    }
    // Made a member, the person gets the key, which uses the Agent (and manages none of it); removed, it stops.
    const userId = await registeredPerson(api.url, email);
    expect((await owner.as.post(members, { userId, role: 'member' })).status).toBe(201);
    const issued = await issue([agent.body.id]);
    expect(issued.status).toBe(201);
    const listed = client(api.url, issued.body.key);
    expect((await listed.get(agentPath)).status).toBe(200);
    expect(code(await listed.put(agentPath, { name: 'mine' }))).toEqual([403, 'space_change_denied']);
    expect((await owner.as.delete(`${members}/${issued.body.ownerUserId}`)).status).toBe(204);
    expect(code(await listed.get(agentPath))).toEqual([403, 'agent_access_denied']);
    expect(code(await listed.post(`${CORE}/llm/${agent.body.id}/conversation`, { message: 'hi' }))).toEqual([
      403,
      'agent_access_denied',
    ]);
    // A key the admin issues for itself (machine use) acts as the admin, narrowed to what it lists.
    const machine = await admin().post<{ key: string }>(`${CORE}/api-keys`, {
      name: uniqueName('machine'),
      agents: [agent.body.id],
    });
    expect(machine.status).toBe(201);
    const machineKey = client(api.url, machine.body.key);
    expect((await machineKey.get(agentPath)).status).toBe(200);
    expect(code(await machineKey.put(agentPath, { name: 'mine' }))).toEqual([403, 'space_change_denied']);
  });

  it("lists the Agents of one's Spaces in full pages: Agents of other Spaces are left out by the query, not after paging", async () => {
    const stranger = await person('stranger-spaces');
    const elsewhere = await stranger.as.post<{ id: string }>(`${CORE}/spaces`, { name: uniqueName('Else') });
    for (const name of ['e1', 'e2', 'e3'])
      expect((await stranger.as.post(`${CORE}/agents`, { spaceId: elsewhere.body.id, name })).status).toBe(
        201,
      );
    const reader = await person('full-pages');
    const mine = await reader.as.post<{ id: string }>(`${CORE}/spaces`, { name: uniqueName('Mine') });
    const ids: string[] = [];
    for (const name of ['m1', 'm2']) {
      const created = await reader.as.post<{ id: string }>(`${CORE}/agents`, { spaceId: mine.body.id, name });
      ids.push(created.body.id);
    }
    // Every Agent the reader may use, page by page: each page but the last is full.
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { status: number; body: { data: { id: string }[]; nextCursor: string | null } } =
        await reader.as.get(`${CORE}/agents?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(page.status).toBe(200);
      if (page.body.nextCursor !== null) expect(page.body.data).toHaveLength(2);
      seen.push(...page.body.data.map((agent) => agent.id));
      cursor = page.body.nextCursor;
    } while (cursor !== null);
    expect(seen).toEqual(expect.arrayContaining(ids));
    const first = await reader.as.get<{ data: { id: string; spaceId: string | null }[] }>(
      `${CORE}/agents?limit=2`,
    );
    expect(first.body.data).toHaveLength(2);
    expect(first.body.data.every((agent) => agent.spaceId !== elsewhere.body.id)).toBe(true);
  });

  it("a member starts a turn from a library prompt (a version of it); the answer's provenance names the version", async () => {
    const [owner, member] = [await person('prompt-owner'), await person('prompt-member')];
    const space = await owner.as.post<{ id: string }>(`${CORE}/spaces`, { name: uniqueName('Prompts') });
    const spaceId = space.body.id;
    expect(
      (await owner.as.post(`${CORE}/spaces/${spaceId}/members`, { userId: member.userId, role: 'member' }))
        .status,
    ).toBe(201);
    const agent = await owner.as.post<{ id: string }>(`${CORE}/agents`, { spaceId, name: 'Prompted' });
    const prompts = `${CORE}/spaces/${spaceId}/prompts`;
    const prompt = await owner.as.post<{ id: string }>(prompts, { title: 'Greet', text: 'Say hello.' });
    expect(prompt.status).toBe(201);
    expect((await owner.as.patch(`${prompts}/${prompt.body.id}`, { text: 'Say goodbye.' })).status).toBe(200);
    const other = await owner.as.post<{ id: string }>(`${CORE}/spaces`, { name: uniqueName('Other') });
    const foreign = await owner.as.post<{ id: string }>(`${CORE}/spaces/${other.body.id}/prompts`, {
      title: 'Foreign',
      text: 'Not here.',
    });
    expect(foreign.status).toBe(201);

    const turnPath = `${CORE}/llm/${agent.body.id}/conversation`;
    type Turn = { conversationId: string; message: { id: string } };
    const current = await member.as.post<Turn>(turnPath, { promptId: prompt.body.id, message: 'to Ada' });
    expect(current.status).toBe(201);
    const first = await member.as.post<Turn>(turnPath, { promptId: prompt.body.id, promptVersion: 1 });
    expect(first.status).toBe(201);
    const userText = async (turn: Turn) =>
      (
        await member.as.get<{ data: { role: string; content: string }[] }>(
          `${turnPath}/${turn.conversationId}/messages`,
        )
      ).body.data.find((message) => message.role === 'user')?.content;
    expect(await userText(current.body)).toBe('Say goodbye.\n\nto Ada');
    expect(await userText(first.body)).toBe('Say hello.');

    // Provenance lists each answer under the prompt version it started from.
    const answersOf = async (source: string) =>
      (
        await member.as.get<{ data: { messageId: string }[] }>(
          `${CORE}/provenance?source=${encodeURIComponent(source)}&limit=200`,
        )
      ).body.data.map((answer) => answer.messageId);
    await waitUntil(async () => (await answersOf(`prompt:${prompt.body.id}`)).length === 2);
    expect(await answersOf(`prompt:${prompt.body.id}@2`)).toEqual([current.body.message.id]);
    expect(await answersOf(`prompt:${prompt.body.id}@1`)).toEqual([first.body.message.id]);

    // Only the Agent's Space's prompts, existing versions; promptVersion needs promptId.
    expect(code(await member.as.post(turnPath, { promptId: foreign.body.id }))).toEqual([
      404,
      'prompt_not_found',
    ]);
    expect(code(await member.as.post(turnPath, { promptId: prompt.body.id, promptVersion: 9 }))).toEqual([
      404,
      'prompt_not_found',
    ]);
    expect((await member.as.post(turnPath, { message: 'hi', promptVersion: 1 })).status).toBe(400);
    expect((await member.as.post(turnPath, {})).status).toBe(400);
  });

  it('creating shared Spaces can be restricted to admins: others get 403 space_creation_restricted', async () => {
    const someone = await person('creator');
    expect((await admin().get<{ creatorRoles: string[] }>(`${CORE}/settings/space-creation`)).body).toEqual({
      creatorRoles: ['admin', 'member'],
      updatedAt: null,
    });
    expect(
      code(await someone.as.put(`${CORE}/settings/space-creation`, { creatorRoles: ['member'] })),
    ).toEqual([403, 'admin_required']);
    expect(
      (await admin().put(`${CORE}/settings/space-creation`, { creatorRoles: ['admin'] })).body,
    ).toMatchObject({
      creatorRoles: ['admin'],
    });
    expect(code(await someone.as.post(`${CORE}/spaces`, { name: uniqueName('Mine') }))).toEqual([
      403,
      'space_creation_restricted',
    ]);
    expect((await admin().post(`${CORE}/spaces`, { name: uniqueName('Admins') })).status).toBe(201);
    expect(
      (await admin().put(`${CORE}/settings/space-creation`, { creatorRoles: ['admin', 'member'] })).status,
    ).toBe(200);
    expect((await someone.as.post(`${CORE}/spaces`, { name: uniqueName('Mine') })).status).toBe(201);
  });

  it('gives every user a private personal Space holding their personal Agent: nobody else sees it, admins included', async () => {
    const someone = await person('private');
    const other = await person('nosy');
    // The personal-space and personal-agent processes follow the registration.
    await waitUntil(async () =>
      (
        await someone.as.get<{ data: { isPersonal: boolean; spaceId: string | null }[] }>(
          `${CORE}/agents?limit=200`,
        )
      ).body.data.some((agent) => agent.isPersonal && agent.spaceId !== null),
    );
    await waitUntil(async () =>
      (await someone.as.get<{ data: { isPersonal: boolean }[] }>(`${CORE}/spaces?limit=200`)).body.data.some(
        (space) => space.isPersonal,
      ),
    );
    const spaces = await someone.as.get<{ data: { id: string; isPersonal: boolean; name: string }[] }>(
      `${CORE}/spaces?limit=200`,
    );
    const personal = spaces.body.data.find((space) => space.isPersonal)!;
    expect(personal).toMatchObject({ name: 'Personal', isPersonal: true });
    const agents = await someone.as.get<{ data: { id: string; isPersonal: boolean; spaceId: string }[] }>(
      `${CORE}/agents?limit=200`,
    );
    expect(agents.body.data.find((agent) => agent.isPersonal)).toMatchObject({ spaceId: personal.id });
    expect((await admin().get(`${CORE}/spaces/${personal.id}`)).status).toBe(404);
    const now = encodeURIComponent(new Date().toISOString());
    expect((await admin().get(`${CORE}/spaces/${personal.id}?asOf=${now}`)).status).toBe(404);
    expect((await someone.as.get(`${CORE}/spaces/${personal.id}?asOf=${now}`)).status).toBe(200);
    expect((await other.as.get(`${CORE}/spaces/${personal.id}`)).status).toBe(404);
    const listed = await admin().get<{ data: { id: string }[] }>(`${CORE}/spaces?limit=200`);
    expect(listed.body.data.map((space) => space.id)).not.toContain(personal.id);
    expect(
      code(
        await someone.as.post(`${CORE}/spaces/${personal.id}/members`, {
          userId: other.userId,
          role: 'member',
        }),
      ),
    ).toEqual([403, 'personal_space_unshareable']);
    expect(code(await someone.as.delete(`${CORE}/spaces/${personal.id}`))).toEqual([
      409,
      'personal_space_undeletable',
    ]);
    expect(code(await someone.as.patch(`${CORE}/spaces/${personal.id}`, { slug: 'taken-over' }))).toEqual([
      409,
      'personal_space_locked',
    ]);
    expect(code(await someone.as.post(`${CORE}/agents`, { spaceId: personal.id, name: 'Shared?' }))).toEqual([
      403,
      'space_change_denied',
    ]);
  });
});
