// The door through which bridge requests (`/api/v1/bridge`) are authenticated: an App's bearer token or a
// `svc_session_token` the App proxy handed it. Identity only names it; the apps context provides it (identity does not
// import the contexts built on it), as the Agents context provides the AgentDirectory.
import type { FastifyRequest } from 'fastify';
import type { Caller } from '../caller.js';

/**
 * The bridge's base path (spec, App-facing paths). Every route under it takes `Authorization: Bearer <App token |
 * svc_session_token>`, never an API key or a cookie; the core API's Agent routes the bridge offers are the same
 * controllers registered under both paths (`/api/v1/core/llm/{agentId}/…` and `/api/v1/bridge/agents/{agentId}/llm/…`).
 */
export const BRIDGE_PREFIX = '/api/v1/bridge/';

export abstract class AppCallers {
  /**
   * The caller of a bridge request presenting `token` for the Agent `agentId` (null: a standalone call): an App
   * caller whose allowlist holds `agentId` only if the App's does. Null when the token is unknown, revoked or expired.
   */
  abstract callerOf(token: string, agentId: string | null, request: FastifyRequest): Promise<Caller | null>;
}
