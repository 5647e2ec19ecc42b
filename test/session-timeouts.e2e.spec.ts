// Session timeouts (issue 21 §2), with time driven through the injectable SessionClock (no sleeps): a session used
// within its idle timeout lives on; one left idle past it ends; one in use still ends at its absolute timeout. "Sign
// out everywhere" ends every session of the user, and only theirs.
import { SessionClock } from '#identity';
import { client, CORE, startTestApi, type TestApi } from './support/api.js';

const MINUTE = 60_000;
const PASSWORD = 'timeouts-Passw0rd-2c4e';

describe('session timeouts (e2e, a driven clock)', () => {
  let api: TestApi;
  let now: number;

  beforeAll(async () => {
    api = await startTestApi({ SESSION_IDLE_MINUTES: '30', SESSION_ABSOLUTE_HOURS: '2' });
    now = Date.now();
    api.app.get(SessionClock).now = () => now;
  });
  afterAll(() => api.close());
  // Sessions start at the wall clock's time: each test starts the driven clock there.
  beforeEach(() => {
    now = Date.now();
  });

  /** A new user, invited and accepted: the acceptance's session cookie. */
  const newSession = async (email: string) => {
    const invitation = await client(api.url).post<{ link: string }>(`${CORE}/invitations`, { email });
    const token = decodeURIComponent(invitation.body.link.split('#token=')[1]!);
    const accepted = await client(api.url, null).post(`${CORE}/invitations/accept`, {
      token,
      name: email.split('@')[0],
      password: PASSWORD,
    });
    expect(accepted.status).toBe(201);
    return /ap_session=[A-Za-z0-9_-]{43}/.exec(accepted.headers.get('set-cookie') ?? '')![0];
  };
  const status = async (cookie: string) =>
    (await client(api.url, null).get(`${CORE}/users/me`, { cookie })).status;
  const signIn = async (email: string) => {
    const reply = await client(api.url, null).post(`${CORE}/auth/sign-in`, { email, password: PASSWORD });
    expect(reply.status).toBe(200);
    return /ap_session=[A-Za-z0-9_-]{43}/.exec(reply.headers.get('set-cookie') ?? '')![0];
  };

  it('the idle timeout ends a session left unused, not one in use', async () => {
    const used = await newSession('idle-used@example.com');
    const idle = await newSession('idle-left@example.com');
    for (let step = 0; step < 3; step++) {
      now += 25 * MINUTE;
      expect(await status(used)).toBe(200);
    }
    // 75 minutes on: the used session lives, the one left alone for more than 30 minutes is over.
    expect(await status(idle)).toBe(401);
    now += 31 * MINUTE;
    expect(await status(used)).toBe(401);
  });

  it('the absolute timeout ends a session however much it is used', async () => {
    const session = await newSession('absolute@example.com');
    const started = now;
    while (now - started < 2 * 60 * MINUTE - 20 * MINUTE) {
      now += 20 * MINUTE;
      expect(await status(session)).toBe(200);
    }
    now += 21 * MINUTE;
    expect(now - started).toBeGreaterThan(2 * 60 * MINUTE);
    const reply = await client(api.url, null).get<{ error: { code: string } }>(`${CORE}/users/me`, {
      cookie: session,
    });
    expect(reply.status).toBe(401);
    expect(reply.body.error.code).toBe('invalid_session');
  });

  it('sign out everywhere ends every session of the user and no one else’s; signing in rotates the session', async () => {
    const first = await newSession('everywhere@example.com');
    const second = await signIn('everywhere@example.com');
    const other = await newSession('bystander@example.com');
    expect(first).not.toBe(second);
    expect(await status(first)).toBe(200);
    const out = await client(api.url, null).post(`${CORE}/auth/sign-out-everywhere`, undefined, {
      cookie: second,
      origin: api.url,
    });
    expect(out.status).toBe(204);
    expect(await status(first)).toBe(401);
    expect(await status(second)).toBe(401);
    expect(await status(other)).toBe(200);

    // Rotation: signing in with a session cookie ends that session and starts another.
    now += 1000;
    const before = await signIn('bystander@example.com');
    const reply = await client(api.url, null).post(
      `${CORE}/auth/sign-in`,
      { email: 'bystander@example.com', password: PASSWORD },
      { cookie: before },
    );
    const after = /ap_session=[A-Za-z0-9_-]{43}/.exec(reply.headers.get('set-cookie') ?? '')![0];
    expect(after).not.toBe(before);
    expect(await status(before)).toBe(401);
    expect(await status(after)).toBe(200);
  });
});
