// App bearer tokens: `apt_` + 32 random bytes, shown once; only their SHA-256 is kept. Session tokens handed to an App
// by the proxy (`svc_session_token`) are signed, short-lived and scoped to one App and one person (app-session-token.ts).
import { createHash, randomBytes } from 'node:crypto';

export const APP_TOKEN_PREFIX = 'apt_';

export const newAppToken = (): string => `${APP_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;

export const hashAppToken = (token: string): string => createHash('sha256').update(token).digest('hex');
