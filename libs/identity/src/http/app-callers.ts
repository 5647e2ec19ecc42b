// The door through which bridge requests (`/api/v1/bridge`) are authenticated: an App's bearer token or a
// `svc_session_token` the App proxy handed it. Identity only names it; the apps context provides it (identity does not
// import the contexts built on it), as the Agents context provides the AgentDirectory.
import { SetMetadata } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { Caller } from './caller.js';

export const ACCEPTS_APP_TOKEN = 'platform:accepts-app-token';
/** A bridge route: it takes `Authorization: Bearer <App token | svc_session_token>`, never an API key or a cookie. */
export const AcceptsAppToken = () => SetMetadata(ACCEPTS_APP_TOKEN, true);

export abstract class AppCallers {
  /**
   * The caller of a bridge request presenting `token` for the Agent `agentId` (null: a standalone call): an App
   * caller whose allowlist holds `agentId` only if the App's does. Null when the token is unknown, revoked or expired.
   */
  abstract callerOf(token: string, agentId: string | null, request: FastifyRequest): Promise<Caller | null>;
}
