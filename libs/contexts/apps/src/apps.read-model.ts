// The Apps read model (admin lists, the proxy's and the bridge's look-ups): one document per live App, with its
// token's hash (never answered) so that a bearer token is found by one indexed read. Built by projections/apps.
// The allowlists are the allowlist process's documents (app-allowlist.process.ts), one per (App, Agent).
import { defineReadModel } from '#eventsourcing';
import type { AppEnablement, AppMeta, AppSource } from './app.events.js';
import type { McpOffer } from './mcp/mcp-offer.js';

export interface AppView {
  readonly id: string;
  readonly name: string;
  readonly source: AppSource;
  readonly enablement: AppEnablement;
  readonly tokenHash: string;
  readonly meta: AppMeta | null;
  /** A standalone App's `/meta` id, lower case (the proxy serves it there too); null otherwise. */
  readonly standaloneId?: string | null;
  readonly lastError: string | null;
  /** What an MCP server's App offered when last read (absent on documents of other Apps). */
  readonly mcp?: McpOffer | null;
  readonly upstreamUrl: string | null;
  readonly createdAt: string;
  readonly updatedAt: string;
}

export const APPS = 'apps';

export const APPS_READ_MODEL = defineReadModel<AppView>({
  name: APPS,
  projection: 'apps',
  indexes: [{ fields: ['createdAt'] }, { fields: ['tokenHash'] }, { fields: ['standaloneId'] }],
});

/** One document per Agent an App may reach: `{appId}:{agentId}`. */
export interface AppAllowlistEntry {
  readonly id: string;
  readonly appId: string;
  readonly agentId: string;
}

export const APP_ALLOWLIST = 'app_allowlist';
export const allowlistEntryId = (appId: string, agentId: string): string => `${appId}:${agentId}`;
