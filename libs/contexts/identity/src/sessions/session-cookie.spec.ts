// The session cookie read and written by @fastify/cookie on a real Fastify instance (its inject, no socket).
import fastifyCookie from '@fastify/cookie';
import Fastify, { type FastifyInstance } from 'fastify';
import { clearSessionCookie, sessionSecretOf, setSessionCookie } from './session-cookie.js';

const SECRET = 'A'.repeat(21) + '-_' + 'z'.repeat(20);

describe('session cookie (through @fastify/cookie)', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = Fastify();
    await app.register(fastifyCookie);
    app.get('/secret', (request) => ({ secret: sessionSecretOf(request) }));
    app.post('/sign-in', (_request, reply) => {
      setSessionCookie(reply, SECRET, 3_600_500, true);
      return {};
    });
    app.post('/sign-out', (_request, reply) => {
      clearSessionCookie(reply, false);
      return {};
    });
    await app.ready();
  });
  afterAll(() => app.close());

  const secretOf = async (cookie?: string) =>
    (await app.inject({ url: '/secret', headers: cookie === undefined ? {} : { cookie } })).json<{
      secret: string | null;
    }>().secret;

  it('reads the secret among other cookies; the first of two wins; a value of another shape is none', async () => {
    expect(await secretOf(`theme=dark; ap_session=${SECRET}; lang=en`)).toBe(SECRET);
    expect(await secretOf(`ap_session=${SECRET}; ap_session=${'B'.repeat(43)}`)).toBe(SECRET);
    expect(await secretOf()).toBeNull();
    expect(await secretOf('ap_session=short')).toBeNull();
    expect(await secretOf(`ap_session=${SECRET}x`)).toBeNull();
    expect(await secretOf(`ap_session_other=${SECRET}`)).toBeNull();
    expect(await secretOf(`ap_session=${SECRET.slice(1)}%3D`)).toBeNull();
  });

  it('sets it HttpOnly, SameSite=Lax, on the whole origin, for whole seconds, Secure when asked; clearing expires it', async () => {
    const set = (await app.inject({ method: 'POST', url: '/sign-in' })).headers['set-cookie'] as string;
    expect(set.split('; ').sort()).toEqual(
      [`ap_session=${SECRET}`, 'Path=/', 'HttpOnly', 'SameSite=Lax', 'Max-Age=3600', 'Secure'].sort(),
    );
    const cleared = (await app.inject({ method: 'POST', url: '/sign-out' })).headers['set-cookie'] as string;
    expect(cleared.split('; ')).toEqual(
      expect.arrayContaining(['ap_session=', 'Path=/', 'HttpOnly', 'Max-Age=0']),
    );
    expect(cleared).not.toContain('Secure');
  });
});
