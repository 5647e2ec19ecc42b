// The session cookie: an opaque secret for the whole origin (see secret-cookies.ts), Secure when PUBLIC_URL is https.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { clearSecretCookie, secretCookieOf, setSecretCookie } from './secret-cookies.js';

export const SESSION_COOKIE = 'ap_session';

const scope = (secure: boolean) => ({ path: '/', secure });

/** The session secret a request carries in its Cookie header, if any. */
export const sessionSecretOf = (request: FastifyRequest): string | null =>
  secretCookieOf(request, SESSION_COOKIE);

export const setSessionCookie = (reply: FastifyReply, secret: string, maxAgeMs: number, secure: boolean) =>
  setSecretCookie(reply, SESSION_COOKIE, secret, scope(secure), maxAgeMs);

export const clearSessionCookie = (reply: FastifyReply, secure: boolean) =>
  clearSecretCookie(reply, SESSION_COOKIE, scope(secure));
