// People (issue 21): invited users. An administrator invites by email with a role; the single-use link is accepted
// once with a name, a password and a language; refused links and taken emails change nothing; nobody changes their
// own role, the last administrator stays; deactivation stops the person's keys with the next request. No password or
// link token appears in an event or a log line.
import { EVENT_STORE, type EventStore } from '#event-store';
import { request as httpRequest } from 'node:http';
import { waitUntil } from '#testing/fixtures';
import { ADMIN_KEY, client, CORE, startTestApi, type TestApi } from './support/api.js';

const PASSWORD = 'canary-Passw0rd-7f3e91';

interface Invitation {
  id: string;
  email: string;
  role: string;
  status: string;
  link: string | null;
}
interface User {
  id: string;
  email: string;
  role: string;
  status: string;
  language: string;
  hasPassword: boolean;
  name: string;
}

const tokenOf = (link: string) => decodeURIComponent(link.split('#token=')[1] ?? '');

describe('people: invitations and users (e2e)', () => {
  let api: TestApi;
  let admin: ReturnType<typeof client>;
  const tokens: string[] = [];
  const secrets: string[] = [];

  beforeAll(async () => {
    api = await startTestApi();
    admin = client(api.url);
  });
  afterAll(() => api.close());

  const invite = async (email: string, role = 'member') => {
    const reply = await admin.post<Invitation>(`${CORE}/invitations`, { email, role });
    expect(reply.status).toBe(201);
    tokens.push(tokenOf(reply.body.link!));
    return reply.body;
  };
  const anonymous = () => client(api.url, null);
  const accept = (token: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
    anonymous().post<User & { error: { code: string } }>(
      `${CORE}/invitations/accept`,
      { token, name: 'Bo Berg', password: PASSWORD, ...extra },
      headers,
    );

  it('invite → the mail outbox holds the link → accept once with a password and the language of Accept-Language', async () => {
    const invitation = await invite('bo@example.com');
    expect(invitation).toMatchObject({ email: 'bo@example.com', role: 'member', status: 'pending' });
    const token = tokenOf(invitation.link!);

    const outbox = await admin.get<{ data: { to: string; kind: string; text: string }[] }>(
      `${CORE}/mail-outbox`,
    );
    expect(outbox.body.data[0]).toMatchObject({ to: 'bo@example.com', kind: 'invitation' });
    expect(outbox.body.data[0]!.text).toContain(token);
    expect((await client(api.url, null).get(`${CORE}/mail-outbox`)).status).toBe(401);

    // Bad input: 4xx, nothing changes.
    expect((await accept(token, { password: 'short' })).status).toBe(400);
    expect((await accept(`${token.slice(0, -2)}xx`)).body.error.code).toBe('invalid_invitation');
    expect((await accept('not-a-token')).body.error.code).toBe('invalid_invitation');

    const accepted = await accept(token, {}, { 'accept-language': 'fr;q=1, de-DE;q=0.9, en;q=0.5' });
    expect(accepted.status).toBe(201);
    expect(accepted.body).toMatchObject({
      email: 'bo@example.com',
      name: 'Bo Berg',
      role: 'member',
      status: 'active',
      language: 'de',
      hasPassword: true,
    });
    expect(JSON.stringify(accepted.body)).not.toMatch(/argon2|passwordHash/);
    // Accepting signs the person in.
    const cookie = /ap_session=[A-Za-z0-9_-]{43}/.exec(accepted.headers.get('set-cookie') ?? '')?.[0];
    expect(cookie).toBeDefined();
    secrets.push(cookie!.split('=')[1]!);
    expect((await client(api.url, null).get<User>(`${CORE}/users/me`, { cookie: cookie! })).body.id).toBe(
      accepted.body.id,
    );

    const reused = await accept(token);
    expect(reused.status).toBe(409);
    expect(reused.body.error.code).toBe('invitation_used');
    const listed = await admin.get<{ data: Invitation[] }>(`${CORE}/invitations`);
    expect(listed.body.data.find((i) => i.id === invitation.id)).toMatchObject({ status: 'accepted' });
  });

  it('a revoked link, an email already a user, and an email taken meanwhile are refused and change nothing', async () => {
    const revoked = await invite('cy@example.com');
    expect((await admin.delete<Invitation>(`${CORE}/invitations/${revoked.id}`)).body.status).toBe('revoked');
    expect((await accept(tokenOf(revoked.link!))).body.error.code).toBe('invitation_revoked');

    const taken = await admin.post<{ error: { code: string } }>(`${CORE}/invitations`, {
      email: 'BO@example.com',
    });
    expect(taken.status).toBe(409);
    expect(taken.body.error.code).toBe('email_taken');

    const first = await invite('di@example.com');
    const second = await invite('di@example.com');
    expect((await accept(tokenOf(first.link!), { language: 'en' })).status).toBe(201);
    const late = await accept(tokenOf(second.link!));
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe('email_taken');
    const listed = await admin.get<{ data: Invitation[] }>(`${CORE}/invitations?limit=100`);
    expect(listed.body.data.find((i) => i.id === second.id)).toMatchObject({ status: 'pending' });
    expect((await admin.post(`${CORE}/invitations/accept`, { token: 'x' })).status).toBe(400);
  });

  it('members cannot invite or change roles; nobody changes their own role; the last admin stays', async () => {
    const users = await admin.get<{ data: User[] }>(`${CORE}/users?limit=100`);
    const bo = users.body.data.find((u) => u.email === 'bo@example.com')!;
    const me = await admin.get<User>(`${CORE}/users/me`);

    // Bo, a member, with a key of their own: no invitations, no roles, not even their own.
    const boKey = await admin.post<{ key: string }>(`${CORE}/api-keys`, {
      name: 'bo',
      owner: { email: bo.email },
    });
    const asBo = client(api.url, boKey.body.key);
    expect((await asBo.post(`${CORE}/invitations`, { email: 'x@example.com' })).status).toBe(403);
    expect((await asBo.patch(`${CORE}/users/${bo.id}`, { role: 'admin' })).status).toBe(403);
    expect((await admin.get<User>(`${CORE}/users/me`)).body.role).toBe('admin');

    const own = await admin.patch<{ error: { code: string } }>(`${CORE}/users/${me.body.id}`, {
      role: 'member',
    });
    expect(own.status).toBe(403);
    expect(own.body.error.code).toBe('own_role_unchangeable');
    const self = await admin.post<{ error: { code: string } }>(`${CORE}/users/${me.body.id}/deactivate`);
    expect(self.status).toBe(403);

    // Promote Bo, who (with an admin key) demotes the bootstrap admin: its admin key then acts as a member's.
    expect((await admin.patch<User>(`${CORE}/users/${bo.id}`, { role: 'admin' })).body.role).toBe('admin');
    const boAdminKey = await admin.post<{ key: string }>(`${CORE}/api-keys`, {
      name: 'bo admin',
      owner: { email: bo.email },
      isAdmin: true,
    });
    const asBoAdmin = client(api.url, boAdminKey.body.key);
    expect((await asBoAdmin.patch<User>(`${CORE}/users/${me.body.id}`, { role: 'member' })).body.role).toBe(
      'member',
    );
    const demoted = await admin.patch<{ error: { code: string } }>(`${CORE}/users/${bo.id}`, {
      role: 'member',
    });
    expect(demoted.status).toBe(403);
    expect((await admin.get(`${CORE}/api-keys`)).status).toBe(403);
    // Bo, now the only admin, cannot demote or deactivate themselves (the decider spec covers the last admin).
    expect((await asBoAdmin.patch(`${CORE}/users/${bo.id}`, { role: 'member' })).status).toBe(403);
    expect((await asBoAdmin.post(`${CORE}/users/${bo.id}/deactivate`)).status).toBe(403);
    expect((await asBoAdmin.patch<User>(`${CORE}/users/${me.body.id}`, { role: 'admin' })).body.role).toBe(
      'admin',
    );
    expect((await admin.patch(`${CORE}/users/usr_unknown`, { role: 'admin' })).status).toBe(404);
  });

  it("deactivation stops the person's keys with the next request; reactivation restores them", async () => {
    const users = await admin.get<{ data: User[] }>(`${CORE}/users?limit=100`);
    const di = users.body.data.find((u) => u.email === 'di@example.com')!;
    const diKey = await admin.post<{ key: string }>(`${CORE}/api-keys`, {
      name: 'di',
      owner: { email: di.email },
    });
    const asDi = client(api.url, diKey.body.key);
    expect((await asDi.get(`${CORE}/users/me`)).status).toBe(200);

    expect((await admin.post<User>(`${CORE}/users/${di.id}/deactivate`)).body.status).toBe('deactivated');
    const refused = await asDi.get<{ error: { code: string } }>(`${CORE}/users/me`);
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('user_deactivated');

    expect((await admin.post<User>(`${CORE}/users/${di.id}/reactivate`)).body.status).toBe('active');
    expect((await asDi.get(`${CORE}/users/me`)).status).toBe(200);
  });

  const signIn = async (email: string, password = PASSWORD, cookie?: string) => {
    const response = await fetch(`${api.url}${CORE}/auth/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(cookie ? { cookie } : {}) },
      body: JSON.stringify({ email, password }),
    });
    const body = (await response.json()) as User & { error: { code: string } };
    const setCookie = response.headers.get('set-cookie') ?? '';
    const secret = /ap_session=([^;]*)/.exec(setCookie)?.[1] ?? '';
    if (secret) secrets.push(secret);
    return {
      status: response.status,
      body,
      setCookie,
      cookie: `ap_session=${secret}`,
      headers: response.headers,
    };
  };
  const withCookie = (cookie: string, origin: string | null = api.url) => ({
    cookie,
    get: <T>(path: string) => client(api.url, null).get<T>(path, { cookie }),
    post: <T>(path: string, body?: unknown) =>
      client(api.url, null).post<T>(path, body, { cookie, ...(origin ? { origin } : {}) }),
  });

  it('sign in with the password → an HttpOnly SameSite=Lax cookie that works on the core API; the compat API refuses it', async () => {
    const wrong = await signIn('bo@example.com', 'not-the-password-at-all');
    const unknown = await signIn('nobody@example.com', 'not-the-password-at-all');
    expect(wrong.status).toBe(401);
    expect([unknown.status, unknown.body]).toEqual([wrong.status, wrong.body]);
    expect(wrong.body.error.code).toBe('invalid_credentials');

    const bo = await signIn('BO@example.com');
    expect(bo.status).toBe(200);
    expect(bo.body.email).toBe('bo@example.com');
    // The attributes in any order (the serializer's): a browser reads them as a set.
    const [pair, ...attributes] = bo.setCookie.split('; ');
    expect(pair).toMatch(/^ap_session=[A-Za-z0-9_-]{43}$/);
    expect(attributes.map((attribute) => attribute.replace(/^Max-Age=\d+$/, 'Max-Age=N')).sort()).toEqual([
      'HttpOnly',
      'Max-Age=N',
      'Path=/',
      'SameSite=Lax',
    ]);
    const asBo = withCookie(bo.cookie);
    expect((await asBo.get<User>(`${CORE}/users/me`)).body.email).toBe('bo@example.com');
    expect((await asBo.get(`${CORE}/agents`)).status).toBe(200);

    // CSRF: an unsafe request by cookie must come from this instance.
    const foreign = await withCookie(bo.cookie, 'https://evil.example').post<{ error: { code: string } }>(
      `${CORE}/spaces`,
      { name: 'from elsewhere' },
    );
    expect(foreign.status).toBe(403);
    expect(foreign.body.error.code).toBe('csrf_origin_mismatch');
    expect((await withCookie(bo.cookie, null).post(`${CORE}/spaces`, { name: 'no origin' })).status).toBe(
      403,
    );
    expect((await asBo.post(`${CORE}/spaces`, { name: 'from here' })).status).toBe(201);

    // The compatible gateway is key-only.
    const compat = await client(api.url, null).get<{ error: { code: string } }>('/api/compat/v1/models', {
      cookie: bo.cookie,
    });
    expect(compat.status).toBe(401);

    // Signing in again rotates the session: the one the request came with ends.
    const again = await signIn('bo@example.com', PASSWORD, bo.cookie);
    expect(again.cookie).not.toBe(bo.cookie);
    expect((await asBo.get(`${CORE}/users/me`)).status).toBe(401);
    expect((await withCookie(again.cookie).get(`${CORE}/users/me`)).status).toBe(200);
  });

  it('a signed-in member sees, changes and deletes the Space they created; another member does not see it', async () => {
    const member = async (email: string) => {
      const invitation = await invite(email);
      expect((await accept(tokenOf(invitation.link!), { name: email })).status).toBe(201);
      return withCookie((await signIn(email)).cookie);
    };
    const eve = await member('eve-spaces@example.com');
    const fay = await member('fay-spaces@example.com');
    const created = await eve.post<{ id: string; name: string; createdByUserId: string | null }>(
      `${CORE}/spaces`,
      {
        name: 'Eve signed in',
      },
    );
    expect(created.status).toBe(201);
    expect(created.body.name).toBe('Eve signed in');
    const eveId = (await eve.get<User>(`${CORE}/users/me`)).body.id;
    expect(created.body.createdByUserId).toBe(eveId);
    const path = `${CORE}/spaces/${created.body.id}`;
    expect((await eve.get(path)).status).toBe(200);
    const listed = await eve.get<{ data: { id: string }[] }>(`${CORE}/spaces`);
    expect(listed.body.data.map((space) => space.id)).toContain(created.body.id);
    // Another member's session neither sees nor changes it.
    expect((await fay.get(path)).status).toBe(404);
    const asFay = await fetch(`${api.url}${path}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json', cookie: fay.cookie, origin: api.url },
      body: JSON.stringify({ name: 'Taken over' }),
    });
    expect(asFay.status).toBe(404);
    const renamed = await fetch(`${api.url}${path}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json', cookie: eve.cookie, origin: api.url },
      body: JSON.stringify({ name: 'Eve renamed' }),
    });
    expect(renamed.status).toBe(200);
    const deleted = await fetch(`${api.url}${path}`, {
      method: 'DELETE',
      headers: { cookie: eve.cookie, origin: api.url },
    });
    expect(deleted.status).toBe(204);
  });

  it('wrong passwords are rate limited per account and source address (429 with Retry-After, even for the right password)', async () => {
    for (let i = 0; i < 5; i++)
      expect((await signIn('di@example.com', `wrong-password-${i}`)).status).toBe(401);
    const limited = await signIn('di@example.com');
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('sign_in_rate_limited');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    const events = await api.app.get<EventStore>(EVENT_STORE).readAll();
    expect(events.filter((e) => e.type === 'SignInFailed').length).toBeGreaterThanOrEqual(7);
  });

  it('an attacker failing from one address does not lock out the person signing in from another', async () => {
    const invitation = await invite('fay@example.com');
    expect((await accept(tokenOf(invitation.link!), { name: 'Fay' })).status).toBe(201);
    // The attacker connects from 127.0.0.2, the person from 127.0.0.1 (the api sees the socket's address).
    const attempt = (password: string) =>
      new Promise<number>((resolve, reject) => {
        const body = JSON.stringify({ email: 'fay@example.com', password });
        const sent = httpRequest(
          `${api.url}${CORE}/auth/sign-in`,
          {
            method: 'POST',
            localAddress: '127.0.0.2',
            headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
          },
          (response) => response.resume().on('end', () => resolve(response.statusCode!)),
        );
        sent.on('error', reject);
        sent.end(body);
      });
    const statuses = [];
    for (let i = 0; i < 20; i++) statuses.push(await attempt(`guess-${i}`));
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(statuses.slice(5).every((status) => status === 429)).toBe(true);
    // Even the right password waits from the attacker's address; from the person's own, it signs in.
    expect(await attempt(PASSWORD)).toBe(429);
    expect((await signIn('fay@example.com')).status).toBe(200);
  });

  it('sign-out ends this session, sign-out-everywhere every one; deactivation stops cookie and key within one request', async () => {
    const one = await signIn('bo@example.com');
    const two = await signIn('bo@example.com');
    expect((await withCookie(one.cookie).post(`${CORE}/auth/sign-out`)).status).toBe(204);
    expect((await withCookie(one.cookie).get(`${CORE}/users/me`)).status).toBe(401);
    expect((await withCookie(two.cookie).get(`${CORE}/users/me`)).status).toBe(200);
    expect((await withCookie(two.cookie).post(`${CORE}/auth/sign-out-everywhere`)).status).toBe(204);
    expect((await withCookie(two.cookie).get(`${CORE}/users/me`)).status).toBe(401);

    const users = await admin.get<{ data: User[] }>(`${CORE}/users?limit=100`);
    const bo = users.body.data.find((u) => u.email === 'bo@example.com')!;
    const session = await signIn('bo@example.com');
    const key = await admin.post<{ key: string }>(`${CORE}/api-keys`, {
      name: 'bo 3',
      owner: { email: bo.email },
    });
    expect((await withCookie(session.cookie).get(`${CORE}/users/me`)).status).toBe(200);
    expect((await client(api.url, key.body.key).get(`${CORE}/users/me`)).status).toBe(200);
    expect((await admin.post<User>(`${CORE}/users/${bo.id}/deactivate`)).body.status).toBe('deactivated');
    expect((await withCookie(session.cookie).get(`${CORE}/users/me`)).status).toBe(401);
    expect((await client(api.url, key.body.key).get(`${CORE}/users/me`)).status).toBe(401);
    expect((await signIn('bo@example.com')).status).toBe(401);
    // Reactivation brings back the keys, not the sessions.
    await admin.post(`${CORE}/users/${bo.id}/reactivate`);
    expect((await withCookie(session.cookie).get(`${CORE}/users/me`)).status).toBe(401);
    expect((await client(api.url, key.body.key).get(`${CORE}/users/me`)).status).toBe(200);
  });

  it('Developer Settings: a self-made key is granted only Agents its maker may use, and carries a usage limit', async () => {
    const invitation = await invite('ed@example.com');
    expect((await accept(tokenOf(invitation.link!), { name: 'Ed' })).status).toBe(201);
    const ed = withCookie((await signIn('ed@example.com')).cookie);
    type Agents = { data: { id: string; isPersonal: boolean; ownerUserId: string | null }[] };
    const me = (await ed.get<User>(`${CORE}/users/me`)).body;
    await waitUntil(async () =>
      (await ed.get<Agents>(`${CORE}/agents?limit=200`)).body.data.some((a) => a.isPersonal),
    );
    const personal = (await ed.get<Agents>(`${CORE}/agents?limit=200`)).body.data.find((a) => a.isPersonal)!;
    expect(personal.ownerUserId).toBe(me.id);
    const adminMe = (await admin.get<User>(`${CORE}/users/me`)).body;
    await waitUntil(async () =>
      (await admin.get<Agents>(`${CORE}/agents?limit=200`)).body.data.some(
        (a) => a.ownerUserId === adminMe.id,
      ),
    );
    const adminsPersonal = (await admin.get<Agents>(`${CORE}/agents?limit=200`)).body.data.find(
      (a) => a.ownerUserId === adminMe.id,
    )!;
    const limit = { tokens: 10000, window: 'day' };

    // A conversation turn with the session cookie.
    const turn = await ed.post<{ conversationId: string; message: { content: string } }>(
      `${CORE}/llm/${personal.id}/conversation`,
      { message: 'hello from a session' },
    );
    expect(turn.status).toBe(201);
    expect(turn.body.message.content.length).toBeGreaterThan(0);

    // Asking for an Agent one cannot use is 403 (not narrowed); no usage limit is 400.
    const wider = await ed.post<{ error: { code: string } }>(`${CORE}/me/api-keys`, {
      name: 'wider',
      agents: [personal.id, adminsPersonal.id],
      usageLimit: limit,
    });
    expect(wider.status).toBe(403);
    expect(wider.body.error.code).toBe('agent_access_denied');
    expect((await ed.post(`${CORE}/me/api-keys`, { name: 'no limit', agents: [personal.id] })).status).toBe(
      400,
    );

    const made = await ed.post<{ id: string; key: string; isAdmin: boolean; ownerUserId: string }>(
      `${CORE}/me/api-keys`,
      { name: 'mine', agents: [personal.id], usageLimit: limit },
    );
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ isAdmin: false, ownerUserId: me.id });
    secrets.push(made.body.key);
    const asKey = client(api.url, made.body.key);
    expect((await asKey.get(`${CORE}/agents/${personal.id}`)).status).toBe(200);
    expect([403, 404]).toContain((await asKey.get(`${CORE}/agents/${adminsPersonal.id}`)).status);

    // A key makes no key wider than itself: not "all", not another Agent, not for an admin's personal Agent.
    const fromKey = await asKey.post<{ error: { code: string } }>(`${CORE}/me/api-keys`, {
      name: 'all',
      agents: 'all',
      usageLimit: limit,
    });
    expect(fromKey.status).toBe(403);
    expect(
      (await asKey.post(`${CORE}/me/api-keys`, { name: 'x', agents: [adminsPersonal.id], usageLimit: limit }))
        .status,
    ).toBe(403);
    // Nor may a member make keys for someone else or an admin key (the admin routes stay admin-only).
    expect(
      (await asKey.post(`${CORE}/api-keys`, { name: 'x', owner: { email: 'bo@example.com' } })).status,
    ).toBe(403);

    const listed = await ed.get<{ data: { id: string; ownerUserId: string }[] }>(`${CORE}/me/api-keys`);
    expect(listed.body.data.map((k) => k.id)).toEqual([made.body.id]);
    const others = await admin.get<{ data: { id: string }[] }>(`${CORE}/api-keys?limit=200`);
    const foreignId = others.body.data.find((k) => k.id !== made.body.id)!.id;
    expect((await ed.post(`${CORE}/me/api-keys/${foreignId}/rotate`)).status).toBe(404);
    expect((await client(api.url, null).delete(`${CORE}/me/api-keys/${foreignId}`)).status).toBe(401);

    const rotated = await ed.post<{ id: string; key: string }>(`${CORE}/me/api-keys/${made.body.id}/rotate`);
    expect(rotated.status).toBe(201);
    secrets.push(rotated.body.key);
    expect((await asKey.get(`${CORE}/users/me`)).status).toBe(401);
    const asRotated = client(api.url, rotated.body.key);
    expect((await asRotated.get(`${CORE}/agents/${personal.id}`)).status).toBe(200);
    expect(
      (await ed.post(`${CORE}/me/api-keys`, { name: 'all', agents: 'all', usageLimit: limit })).status,
    ).toBe(201);
    const revoked = await asRotated.delete<{ revoked: boolean }>(`${CORE}/me/api-keys/${rotated.body.id}`);
    expect(revoked.body.revoked).toBe(true);
    expect((await asRotated.get(`${CORE}/users/me`)).status).toBe(401);
  });

  it("Developer Settings: a key mints keys only within its own usage limit (a session's are unlimited by it)", async () => {
    const ed = withCookie((await signIn('ed@example.com')).cookie);
    const own = await ed.post<{ key: string }>(`${CORE}/me/api-keys`, {
      name: 'limited',
      agents: [],
      usageLimit: { tokens: 100_000, window: 'day' },
    });
    expect(own.status).toBe(201);
    secrets.push(own.body.key);
    const mint = (usageLimit: Record<string, unknown>) =>
      client(api.url, own.body.key).post<{ error: { code: string; param: string } }>(`${CORE}/me/api-keys`, {
        name: 'minted',
        agents: [],
        usageLimit,
      });
    for (const above of [
      { tokens: 10 ** 12, window: 'day' },
      { costUsd: 5, window: 'day' },
    ]) {
      const refused = await mint(above);
      expect([refused.status, refused.body.error.code, refused.body.error.param]).toEqual([
        403,
        'usage_limit_above_own',
        'usageLimit',
      ]);
    }
    for (const within of [
      { tokens: 100_000, window: 'day' },
      { tokens: 5_000, window: 'month' },
    ])
      expect((await mint(within)).status).toBe(201);
    expect(
      (
        await ed.post(`${CORE}/me/api-keys`, {
          name: 'wide',
          agents: [],
          usageLimit: { tokens: 10 ** 12, window: 'day' },
        })
      ).status,
    ).toBe(201);
  });

  it('an admin-issued password reset link gives the bootstrap admin a password, once', async () => {
    const me = (await admin.get<User>(`${CORE}/users/me`)).body;
    expect(me.hasPassword).toBe(false);
    const issued = await admin.post<{ link: string }>(`${CORE}/users/${me.id}/password-reset`);
    expect(issued.status).toBe(201);
    const token = tokenOf(issued.body.link);
    tokens.push(token);
    const outbox = await admin.get<{ data: { kind: string; to: string }[] }>(`${CORE}/mail-outbox`);
    expect(outbox.body.data[0]).toMatchObject({ kind: 'password-reset', to: me.email });
    const reset = (body: unknown) =>
      anonymous().post<{ error: { code: string } }>(`${CORE}/auth/password-reset`, body);
    expect((await reset({ token: `${token.slice(0, -2)}xx`, password: PASSWORD })).body.error.code).toBe(
      'invalid_reset_link',
    );
    expect((await reset({ token, password: PASSWORD })).status).toBe(204);
    expect((await reset({ token, password: PASSWORD })).body.error.code).toBe('invalid_reset_link');
    const signedIn = await signIn(me.email);
    expect(signedIn.status).toBe(200);
    expect((await withCookie(signedIn.cookie).get<{ data: User[] }>(`${CORE}/users`)).status).toBe(200);
    expect((await client(api.url, null).post(`${CORE}/users/${me.id}/password-reset`)).status).toBe(401);
  });

  it('no password or link token in any event or log line; every change names its source', async () => {
    const events = await api.app.get<EventStore>(EVENT_STORE).readAll();
    const text = JSON.stringify(events) + api.logs();
    expect(text).not.toContain(PASSWORD);
    for (const token of tokens) expect(text).not.toContain(token.split('.')[1]);
    expect(secrets.length).toBeGreaterThan(3);
    for (const secret of secrets) expect(text).not.toContain(secret);
    expect(text).not.toContain(ADMIN_KEY);
    const changes = events.filter((e) =>
      [
        'UserRoleChanged',
        'UserDeactivated',
        'InvitationIssued',
        'InvitationAccepted',
        'UserPasswordSet',
      ].includes(e.type),
    );
    expect(changes.length).toBeGreaterThan(5);
    for (const event of changes)
      expect((event.data as { source: unknown }).source).toEqual({
        address: '127.0.0.1',
        userAgent: expect.any(String),
      });
  });
});
