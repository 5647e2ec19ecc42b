// The App aggregate: an App registered as a proxied URL or a container image, where it is enabled (chosen Agents or
// every Agent), what its `/meta` said when last read (or why it could not be read: `lastError`), and the hash of its
// bearer token (the token itself is shown once and never stored). An MCP server's App records what the server offered
// when last read. Registry credentials of a container App and an MCP server's bearer token are not here: they live
// sealed in a stream of their own (app-credentials.events.ts) and are never returned.
import type { DomainEvent } from '#kernel';
import type { McpOffer } from './mcp/mcp-offer.js';

export type AppSource =
  | { readonly type: 'url'; readonly url: string }
  | { readonly type: 'container'; readonly image: string; readonly port: number }
  /**
   * An MCP server (streamable HTTP); `auth` names how the platform authenticates, never the secret itself: `oauth`,
   * each person with their own account (OAuth 2.1), asking for `scopes` when given.
   */
  | {
      readonly type: 'mcp';
      readonly url: string;
      readonly auth: 'none' | 'bearer' | 'oauth';
      readonly scopes?: readonly string[];
    };

/** Where an App applies: the Agents chosen for it, or every Agent (personal ones included). */
export type AppEnablement =
  { readonly kind: 'agents'; readonly agentIds: readonly string[] } | { readonly kind: 'global' };

/** What an App's `/meta` declares (validated, see app-meta.ts). */
export interface AppMeta {
  readonly id: string;
  readonly name: string;
  readonly standalone: boolean;
  readonly views: readonly { readonly id: string; readonly title: string; readonly path: string }[];
  readonly tools: readonly AppMetaTool[];
  /** Texts the App offers as synced Knowledge (absent from metas read before Apps could declare them). */
  readonly documents?: readonly AppMetaDocument[];
}

/** A tool an App's `/meta` declares: called as `POST <App URL><path>` with its arguments as the JSON body. */
export interface AppMetaTool {
  readonly name: string;
  readonly description: string;
  /** JSON Schema of its arguments; absent from metas read before Apps declared it (then `{type:"object"}`). */
  readonly inputSchema?: Readonly<Record<string, unknown>>;
  /** Absent from metas read before Apps declared it: then `/tools/<name>`. */
  readonly path?: string;
  /** Hints, never trusted for safety: a destructive tool's calls start as `ask`. */
  readonly annotations?: { readonly readOnlyHint?: boolean; readonly destructiveHint?: boolean };
}

/** A text an App's `/meta` declares, read as `GET <App URL><path>` (text/markdown or text/plain). */
export interface AppMetaDocument {
  readonly uri: string;
  readonly name: string;
  readonly path: string;
}

type Id = { readonly appId: string };

export type AppEvent =
  | DomainEvent<
      'AppRegistered',
      Id & {
        readonly name: string;
        readonly source: AppSource;
        readonly enablement: AppEnablement;
        /** SHA-256 of the bearer token (hex). */
        readonly tokenHash: string;
      }
    >
  | DomainEvent<'AppRenamed', Id & { readonly name: string }>
  | DomainEvent<'AppEnablementChanged', Id & { readonly enablement: AppEnablement }>
  | DomainEvent<'AppTokenRotated', Id & { readonly tokenHash: string }>
  | DomainEvent<'AppMetaRead', Id & { readonly meta: AppMeta; readonly readAt: string }>
  | DomainEvent<'AppMetaReadFailed', Id & { readonly error: string; readonly failedAt: string }>
  | DomainEvent<'AppContainerStarted', Id & { readonly containerId: string; readonly upstreamUrl: string }>
  | DomainEvent<'AppContainerFailed', Id & { readonly error: string; readonly failedAt: string }>
  | DomainEvent<'AppMcpServerRead', Id & { readonly offer: McpOffer; readonly readAt: string }>
  | DomainEvent<'AppDeleted', Id>;

export type AppEventType = AppEvent['type'];

export interface AppRecord {
  readonly appId: string;
  readonly name: string;
  readonly source: AppSource;
  readonly enablement: AppEnablement;
  readonly tokenHash: string;
  readonly meta: AppMeta | null;
  readonly lastError: string | null;
  /** What an MCP server offered when last read (null for other Apps, and before). */
  readonly mcp: McpOffer | null;
  /** Where the proxy sends requests: the URL, or the started container's address (null until it runs). */
  readonly upstreamUrl: string | null;
}

export type AppState =
  { readonly status: 'absent' } | ({ readonly status: 'active' | 'deleted' } & AppRecord);

export const appStreamId = (appId: string): string => `app-${appId}`;

export const initialAppState = (): AppState => ({ status: 'absent' });

export function evolveApp(state: AppState, event: AppEvent): AppState {
  if (event.type === 'AppRegistered') {
    const { appId, name, source, enablement, tokenHash } = event.data;
    return {
      status: 'active',
      appId,
      name,
      source,
      enablement,
      tokenHash,
      meta: null,
      lastError: null,
      mcp: null,
      upstreamUrl: source.type === 'url' ? source.url : null,
    };
  }
  if (state.status === 'absent') return state;
  switch (event.type) {
    case 'AppRenamed':
      return { ...state, name: event.data.name };
    case 'AppEnablementChanged':
      return { ...state, enablement: event.data.enablement };
    case 'AppTokenRotated':
      return { ...state, tokenHash: event.data.tokenHash };
    case 'AppMetaRead':
      return { ...state, meta: event.data.meta, lastError: null };
    case 'AppMetaReadFailed':
      return { ...state, lastError: event.data.error };
    case 'AppContainerStarted':
      return { ...state, upstreamUrl: event.data.upstreamUrl, lastError: null };
    case 'AppContainerFailed':
      return { ...state, lastError: event.data.error };
    case 'AppMcpServerRead':
      return { ...state, mcp: event.data.offer, lastError: null };
    case 'AppDeleted':
      return { ...state, status: 'deleted' };
  }
}
