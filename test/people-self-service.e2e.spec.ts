// A person's own account and the first run: a fresh instance without ADMIN_API_KEY logs a one-time setup link whose
// use creates the admin, signed in; a person renames themself, changes their password (the current one required),
// lists their open sessions (by handles, never a cookie or a session id) and signs out another one.
import { client, CORE, startTestApi, type TestApi } from './support/api.js';

const PASSWORD = 'a long passphrase for the first admin';

/** The session cookie's `name=value` from a Set-Cookie answer. */
const cookieOf = (response: Response): string => response.headers.getSetCookie()[0]!.split(';')[0]!;

const call = (api: TestApi, cookie: string, method: string, path: string, body?: unknown) =>
  fetch(`${api.url}${CORE}/${path}`, {
    method,
    headers: {
      cookie,
      origin: api.url,
      'user-agent': `people-test/${cookie.length}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

const signIn = async (api: TestApi, email: string, password: string, userAgent: string) => {
  const response = await fetch(`${api.url}${CORE}/auth/sign-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'user-agent': userAgent },
    body: JSON.stringify({ email, password }),
  });
  expect(response.status).toBe(200);
  return cookieOf(response);
};

describe("the first run and a person's own account (e2e)", () => {
  let api: TestApi;
  let setupLink: string;
  beforeAll(async () => {
    api = await startTestApi({ ADMIN_API_KEY: '', ADMIN_EMAIL: 'owner@example.com' });
    setupLink = /first run: open (\S+)/.exec(api.logs())![1]!;
  });
  afterAll(() => api.close());

  it('logs a setup link that GET /health keeps from anyone but an admin', async () => {
    expect(setupLink).toMatch(/\/invitations\/accept#token=inv_/);
    const health = await client(api.url, null).get<Record<string, unknown>>('/health');
    expect(health.status).toBe(200);
    expect(health.body.setup).toBeUndefined();
    expect(JSON.stringify(health.body)).not.toContain('#token=');
  });

  it('the setup link creates the admin, signed in, once', async () => {
    const token = decodeURIComponent(setupLink.split('#token=')[1]!);
    const accepted = await fetch(`${api.url}${CORE}/invitations/accept`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'first-browser' },
      body: JSON.stringify({ token, name: 'Olga Owner', password: PASSWORD }),
    });
    expect(accepted.status).toBe(201);
    const me = await (await call(api, cookieOf(accepted), 'GET', 'users/me')).json();
    expect(me).toMatchObject({ email: 'owner@example.com', name: 'Olga Owner', role: 'admin' });
    const again = await client(api.url, null).post(`${CORE}/invitations/accept`, {
      token,
      name: 'Mallory',
      password: 'someone else entirely',
    });
    expect(again.status).toBe(409);
    // Spent: even an admin's /health no longer shows it.
    const adminHealth = await fetch(`${api.url}/health`, { headers: { cookie: cookieOf(accepted) } });
    const health = (await adminHealth.json()) as Record<string, unknown>;
    expect(health.setup).toBeUndefined();
  });

  it('a person renames themself and changes their password with the current one', async () => {
    const cookie = await signIn(api, 'owner@example.com', PASSWORD, 'rename-browser');
    const renamed = await call(api, cookie, 'PATCH', 'users/me', { name: '  Olga O.  ', language: 'de' });
    expect(renamed.status).toBe(200);
    expect(await renamed.json()).toMatchObject({ name: 'Olga O.', language: 'de' });
    const wrong = await call(api, cookie, 'POST', 'users/me/password', {
      currentPassword: 'not the password at all',
      password: 'a brand new passphrase',
    });
    expect(wrong.status).toBe(400);
    expect(((await wrong.json()) as { error: { code: string } }).error.code).toBe('wrong_password');
    const changed = await call(api, cookie, 'POST', 'users/me/password', {
      currentPassword: PASSWORD,
      password: 'a brand new passphrase',
    });
    expect(changed.status).toBe(204);
    await signIn(api, 'owner@example.com', 'a brand new passphrase', 'after-change');
    const old = await fetch(`${api.url}${CORE}/auth/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'owner@example.com', password: PASSWORD }),
    });
    expect(old.status).toBe(401);
  });

  it('lists open sessions by handle and signs out one of them', async () => {
    const laptop = await signIn(api, 'owner@example.com', 'a brand new passphrase', 'Laptop Browser/1.0');
    const phone = await signIn(api, 'owner@example.com', 'a brand new passphrase', 'Phone Browser/2.0');
    const listed = await call(api, laptop, 'GET', 'me/sessions');
    expect(listed.status).toBe(200);
    const { data } = (await listed.json()) as {
      data: { id: string; device: string | null; current: boolean }[];
    };
    const current = data.filter((session) => session.current);
    expect(current).toHaveLength(1);
    expect(current[0]!.device).toBe('Laptop Browser/1.0');
    const other = data.find((session) => session.device === 'Phone Browser/2.0')!;
    // Neither the cookie's secret nor the session's id (ses_…) is shown.
    for (const session of data) expect(session.id).toMatch(/^sh_/);
    expect(JSON.stringify(data)).not.toContain(phone.split('=')[1]!);

    expect((await call(api, laptop, 'DELETE', `me/sessions/${other.id}`)).status).toBe(204);
    expect((await call(api, phone, 'GET', 'users/me')).status).toBe(401);
    expect((await call(api, laptop, 'GET', 'users/me')).status).toBe(200);
    expect((await call(api, laptop, 'DELETE', `me/sessions/${other.id}`)).status).toBe(404);
    expect((await call(api, laptop, 'DELETE', 'me/sessions/sh_unknown')).status).toBe(404);
  });

  it('an admin rotates any key: the new secret works once shown, the old one is refused', async () => {
    const admin = await signIn(api, 'owner@example.com', 'a brand new passphrase', 'keys-browser');
    const issued = await call(api, admin, 'POST', 'api-keys', {
      name: 'reporting',
      owner: { email: 'reporter@example.com' },
    });
    expect(issued.status).toBe(201);
    const old = (await issued.json()) as { id: string; key: string };
    const rotated = await call(api, admin, 'POST', `api-keys/${old.id}/rotate`);
    expect(rotated.status).toBe(201);
    const replacement = (await rotated.json()) as {
      id: string;
      key: string;
      name: string;
      ownerUserId: string;
    };
    expect(replacement).toMatchObject({ name: 'reporting' });
    expect(replacement.key).not.toBe(old.key);
    expect((await client(api.url, replacement.key).get(`${CORE}/users/me`)).body).toMatchObject({
      email: 'reporter@example.com',
    });
    expect((await client(api.url, old.key).get(`${CORE}/users/me`)).status).toBe(401);
    expect((await call(api, admin, 'POST', `api-keys/${old.id}/rotate`)).status).toBe(409);
  });
});
