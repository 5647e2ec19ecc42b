// One OAuth 2.1 exchange with an MCP server's authorization server, as the MCP SDK's `OAuthClientProvider` sees it:
// the SDK discovers (protected-resource and authorization-server metadata), registers a client dynamically when none
// is given, makes the PKCE pair, builds the authorization URL, exchanges the code and refreshes tokens; this object
// holds what it was given (a client, tokens, a verifier) and collects what the SDK produced, so that its owner — the
// CLI in memory, the api in sealed event streams — decides where it goes. It never logs and never throws a secret.
import type { OAuthClientProvider, OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';

export interface McpOAuthSessionInit {
  /** Where the authorization server sends the person back with the code. */
  readonly redirectUrl: string;
  /** Scopes asked for; none: the server's challenge or its advertised scopes decide (the SDK's strategy). */
  readonly scopes?: readonly string[];
  /** A pre-registered client, or the one registered dynamically before. */
  readonly client?: OAuthClientInformationMixed;
  /** The client was given by an admin: never registered again in its place. */
  readonly preRegistered?: boolean;
  readonly tokens?: OAuthTokens;
  readonly codeVerifier?: string;
  /** The `state` sent with the authorization request. */
  readonly state?: string;
  /** Keeps tokens the SDK obtained (a refresh during a call): awaited before the call goes on. */
  readonly onTokens?: (tokens: OAuthTokens) => Promise<void>;
  /** Where the authorization began: the code is exchanged with the same authorization server. */
  readonly discovery?: OAuthDiscoveryState;
}

/** What the SDK asked to keep during one exchange. */
export interface McpOAuthChanges {
  client?: OAuthClientInformationMixed;
  tokens?: OAuthTokens;
  codeVerifier?: string;
  authorizationUrl?: URL;
  discovery?: OAuthDiscoveryState;
}

export class McpOAuthSession implements OAuthClientProvider {
  readonly changes: McpOAuthChanges = {};
  private client: OAuthClientInformationMixed | undefined;
  private currentTokens: OAuthTokens | undefined;
  private verifier: string | undefined;
  private discovery: OAuthDiscoveryState | undefined;

  constructor(private readonly init: McpOAuthSessionInit) {
    this.client = init.client;
    this.currentTokens = init.tokens;
    this.verifier = init.codeVerifier;
    this.discovery = init.discovery;
  }

  get redirectUrl(): string {
    return this.init.redirectUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Agent Platform',
      redirect_uris: [this.init.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      ...(this.init.scopes && this.init.scopes.length > 0 ? { scope: this.init.scopes.join(' ') } : {}),
    };
  }

  state(): string {
    return this.init.state ?? '';
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.client;
  }

  saveClientInformation(client: OAuthClientInformationMixed): void {
    this.client = client;
    this.changes.client = client;
  }

  tokens(): OAuthTokens | undefined {
    return this.currentTokens;
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    this.currentTokens = tokens;
    this.changes.tokens = tokens;
    await this.init.onTokens?.(tokens);
  }

  redirectToAuthorization(authorizationUrl: URL): void {
    this.changes.authorizationUrl = authorizationUrl;
  }

  saveCodeVerifier(codeVerifier: string): void {
    this.verifier = codeVerifier;
    this.changes.codeVerifier = codeVerifier;
  }

  codeVerifier(): string {
    if (!this.verifier) throw new Error('no authorization was started');
    return this.verifier;
  }

  saveDiscoveryState(discovery: OAuthDiscoveryState): void {
    this.discovery = discovery;
    this.changes.discovery = discovery;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.discovery;
  }

  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    // A client the server no longer knows is registered again (unless an admin gave it); tokens it refuses are gone.
    if ((scope === 'all' || scope === 'client') && !this.init.preRegistered) this.client = undefined;
    if (scope === 'all' || scope === 'tokens') this.currentTokens = undefined;
    if (scope === 'all' || scope === 'verifier') this.verifier = undefined;
    if (scope === 'all' || scope === 'discovery') this.discovery = undefined;
  }
}
