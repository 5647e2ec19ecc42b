// The session cookie: an opaque secret, HttpOnly, SameSite=Lax, Secure when PUBLIC_URL is https.
import type { FastifyReply, FastifyRequest } from 'fastify';

export const SESSION_COOKIE = 'ap_session';

/** The session secret a request carries in its Cookie header, if any. */
export const sessionSecretOf = (request: FastifyRequest): string | null => {
  const header = request.headers.cookie;
  if (typeof header !== 'string') return null;
  for (const part of header.split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === SESSION_COOKIE) {
      const secret = value.join('=');
      return /^[A-Za-z0-9_-]{43}$/.test(secret) ? secret : null;
    }
  }
  return null;
};

export const setSessionCookie = (reply: FastifyReply, secret: string, maxAgeMs: number, secure: boolean) =>
  reply.header(
    'set-cookie',
    `${SESSION_COOKIE}=${secret}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${Math.floor(maxAgeMs / 1000)}` +
      (secure ? '; Secure' : ''),
  );

export const clearSessionCookie = (reply: FastifyReply, secure: boolean) =>
  reply.header(
    'set-cookie',
    `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0` + (secure ? '; Secure' : ''),
  );
