// Space members and roles over HTTP (issue 22): three people in a Space as owner, editor and member, each by their
// own key, and a person outside it. What each role may do, the membership rules (nobody grants above their own role,
// nobody changes their own, the last owner stays), removal ending access with the answer, and who may create Spaces.
import { waitUntil } from '#testing/fixtures';
import { client, CORE, startTestApi, uniqueName, type TestApi } from './support/api.js';

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
