// The App shapes the Apps page reads (the OpenAPI's AppDto, as far as the page uses it), an MCP server's offer too.
import type { Label } from '../../i18n';

export type Enablement =
  { readonly kind: 'global' } | { readonly kind: 'agents'; readonly agentIds: readonly string[] };

export interface App {
  readonly id: string;
  readonly name: string;
  readonly source:
    | { readonly type: 'url'; readonly url: string }
    | { readonly type: 'container'; readonly image: string; readonly port: number }
    | { readonly type: 'mcp'; readonly url: string; readonly auth: 'none' | 'bearer' | 'oauth' };
  readonly enablement: Enablement;
  readonly meta: {
    readonly name: string;
    readonly standalone: boolean;
    readonly views: readonly { readonly id: string; readonly title: string }[];
    readonly tools: readonly UrlAppTool[];
    readonly documents?: readonly UrlAppDocument[];
  } | null;
  /** What an MCP server offered when last read; null for other Apps. */
  readonly mcp: McpOffer | null;
  readonly lastError: string | null;
  readonly proxyPath: string;
}

/** A tool a URL App's `/meta` declares: POSTed to `path` with arguments its `inputSchema` describes. */
export interface UrlAppTool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema?: Readonly<Record<string, unknown>>;
  readonly path?: string;
  readonly annotations?: Readonly<Record<string, unknown>>;
}

/** A text a URL App's `/meta` offers as synced Knowledge. */
export interface UrlAppDocument {
  readonly uri: string;
  readonly name: string;
  readonly path: string;
}

export type UrlAppMeta = NonNullable<App['meta']>;

export interface McpTool {
  readonly name: string;
  readonly title?: string;
  readonly description: string;
  /** The server's hints (MCP's `readOnlyHint`, `destructiveHint`, …), untrusted: shown, never relied on. */
  readonly annotations?: Readonly<Record<string, unknown>>;
}

export interface McpOffer {
  readonly server: { readonly name: string; readonly version: string };
  readonly tools: readonly McpTool[];
  readonly resources: readonly unknown[];
  readonly prompts: readonly unknown[];
}

/** How the page names where an App runs. */
export const SOURCE_LABELS: Readonly<Record<App['source']['type'], Label>> = {
  url: 'appSourceUrl',
  container: 'appSourceContainer',
  mcp: 'appSourceMcp',
};

/** How the page names the way the platform signs in to an MCP server. */
export const MCP_AUTH_LABELS: Readonly<Record<'none' | 'bearer' | 'oauth', Label>> = {
  none: 'appMcpNoAuth',
  bearer: 'appMcpBearerSet',
  oauth: 'appMcpOAuth',
};
