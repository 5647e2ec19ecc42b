// The `state` of an MCP App's OAuth authorization — the platform's own, `<app>.<person>.<random>` (base64url), so the
// one callback of every App finds whose pending authorization it completes; only its hash is stored — and the errors a
// person's connection answers.
import { createHash, randomBytes } from 'node:crypto';
import { PlatformError, ValidationError } from '#kernel';

export const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');
const b64 = (text: string): string => Buffer.from(text).toString('base64url');

export const newOAuthState = (appId: string, userId: string): string =>
  `${b64(appId)}.${b64(userId)}.${randomBytes(24).toString('base64url')}`;

/** The App and person a callback's state names. */
export function stateTarget(state: string): { appId: string; userId: string } {
  const [app, user, nonce] = state.split('.');
  if (!app || !user || !nonce)
    throw new ValidationError('invalid_state', 'The state is not one of ours', 'state');
  return {
    appId: Buffer.from(app, 'base64url').toString(),
    userId: Buffer.from(user, 'base64url').toString(),
  };
}

/** Where a person starts connecting their account to the App (POST). */
export const appOAuthConnectPath = (appId: string): string => `/api/v1/core/apps/${appId}/oauth/connect`;

/** 422 `app_connection_required`: the App acts in a person's name, and this person has not connected. */
export const connectionRequired = (appId: string, appName: string): PlatformError =>
  new PlatformError(
    'unprocessable',
    'app_connection_required',
    `${appName} needs you to connect your account: POST ${appOAuthConnectPath(appId)}`,
  );

/** 422 `app_unreachable`: the authorization could not begin (the reason names no secret). */
export const appOAuthFailed = (reason: string): PlatformError =>
  new PlatformError(
    'unprocessable',
    'app_unreachable',
    `The MCP server's sign-in could not begin: ${reason}`,
  );
