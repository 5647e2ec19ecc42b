// The platform's own cookies each hold one random secret (32 bytes, base64url), HttpOnly and SameSite=Lax, Secure
// when the platform is reached over https. @fastify/cookie (registered by the api's bootstrap) parses the request's
// Cookie header and writes the Set-Cookie lines; a value of any other shape is no secret of ours.
import type { CookieSerializeOptions } from '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';

const SECRET = /^[A-Za-z0-9_-]{43}$/;

/** Where a secret cookie is sent back, and whether only over https. */
export interface SecretCookieScope {
  readonly path: string;
  readonly secure: boolean;
}

const attributes = (scope: SecretCookieScope): CookieSerializeOptions => ({
  path: scope.path,
  httpOnly: true,
  sameSite: 'lax',
  secure: scope.secure,
});

/** The secret the request carries in cookie `name` (the first one, as browsers send the most specific first). */
export const secretCookieOf = (request: FastifyRequest, name: string): string | null => {
  const value = request.cookies[name];
  return value !== undefined && SECRET.test(value) ? value : null;
};

export const setSecretCookie = (
  reply: FastifyReply,
  name: string,
  secret: string,
  scope: SecretCookieScope,
  maxAgeMs: number,
): FastifyReply =>
  reply.setCookie(name, secret, { ...attributes(scope), maxAge: Math.floor(maxAgeMs / 1000) });

export const clearSecretCookie = (
  reply: FastifyReply,
  name: string,
  scope: SecretCookieScope,
): FastifyReply => reply.clearCookie(name, attributes(scope));
