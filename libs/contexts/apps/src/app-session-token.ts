// `svc_session_token`: what the App proxy hands an App for the signed-in person (Apps rule 6), usable as the bridge's
// bearer. `svc_` + base64url(JSON { app, user, session, exp }) + `.` + HMAC-SHA256 under a data key every api
// process shares through the key store; it is scoped to one App and one person, lives SESSION_TOKEN_TTL_MS at most,
// and ends with the session it was issued for (the bridge checks that session is still live, and that its person's
// sessions were not all ended since: signing out everywhere, a password reset, a demotion).
import { createHmac, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { endedWithItsUser, SESSIONS, USERS, type SessionView, type UserView } from '#identity';
import { KEY_STORE, type KeyStore } from '#key-store';
import type { ReadStore } from '#read-store';

export const SESSION_TOKEN_PREFIX = 'svc_';
export const SESSION_TOKEN_TTL_MS = 15 * 60_000;
const KEY_ID = 'app-session-token-signing';

export interface AppSessionClaims {
  readonly appId: string;
  readonly userId: string;
  /** The platform session it was issued for. */
  readonly sessionId: string;
  /** Expiry, epoch milliseconds. */
  readonly exp: number;
}

@Injectable()
export class AppSessionTokens {
  constructor(@Inject(KEY_STORE) private readonly keys: KeyStore) {}

  async issue(appId: string, userId: string, sessionId: string, now = Date.now()): Promise<string> {
    const claims = { a: appId, u: userId, s: sessionId, e: now + SESSION_TOKEN_TTL_MS };
    const body = Buffer.from(JSON.stringify(claims)).toString('base64url');
    return `${SESSION_TOKEN_PREFIX}${body}.${await this.sign(body)}`;
  }

  /** The claims of a valid, unexpired token; null otherwise. */
  async verify(token: string, now = Date.now()): Promise<AppSessionClaims | null> {
    const match = /^svc_([A-Za-z0-9_-]{1,2048})\.([A-Za-z0-9_-]{43})$/.exec(token);
    if (!match) return null;
    const [, body, signature] = match as unknown as [string, string, string];
    const expected = Buffer.from(await this.sign(body), 'base64url');
    const given = Buffer.from(signature, 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    try {
      const claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Record<string, unknown>;
      const { a, u, s, e } = claims;
      if (typeof a !== 'string' || typeof u !== 'string' || typeof s !== 'string' || typeof e !== 'number')
        return null;
      if (e <= now) return null;
      return { appId: a, userId: u, sessionId: s, exp: e };
    } catch {
      return null;
    }
  }

  private async sign(body: string): Promise<string> {
    const key = await this.keys.obtain(KEY_ID, 'apps');
    return createHmac('sha256', key).update(body).digest('base64url');
  }
}

/**
 * The claims and the person of a `svc_session_token` whose session still lives (not signed out, revoked or over, its
 * person active); null otherwise. The bridge's check, and the App proxy's for a view opened on APP_ORIGIN.
 */
export async function liveSessionToken(
  tokens: AppSessionTokens,
  readStore: ReadStore,
  token: string,
): Promise<{ readonly claims: AppSessionClaims; readonly user: UserView } | null> {
  const claims = await tokens.verify(token);
  if (!claims) return null;
  const session = await readStore.reader<SessionView>(SESSIONS).get(claims.sessionId);
  if (!session || session.revoked || session.userId !== claims.userId) return null;
  if (Date.parse(session.expiresAt) <= Date.now()) return null;
  const user = await readStore.reader<UserView>(USERS).get(claims.userId);
  if (!user || user.status === 'deactivated' || endedWithItsUser(session, user)) return null;
  return { claims, user };
}
