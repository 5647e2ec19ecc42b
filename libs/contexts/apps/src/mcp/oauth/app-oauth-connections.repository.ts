// People's OAuth connections to MCP Apps: starting one (the MCP SDK discovers the authorization server from the MCP
// server's 401, registers the platform's client when the App has none yet, and builds the authorization URL with
// PKCE; the verifier sealed in the person's stream, the state's hash kept, single-use and expiring), completing it at
// the callback (the state checked against the person's stream, the code exchanged, the tokens sealed), disconnecting
// (the connection's data key destroyed), and the session a call of the App's tools sends the person's tokens with
// (refreshed tokens recorded sealed). The App's first connection also reads what the server offers, which no one can
// list before someone signs in. The event store holds every step, so any api process can complete what another began.
import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import { AggregateRepository, type CommandContext } from '#eventsourcing';
import { ContentCipher, KEY_STORE, type KeyStore } from '#key-store';
import { NotFoundError, PLATFORM_CONFIG, PlatformError, ValidationError, type PlatformConfig } from '#kernel';
import { appCredentialsDecider } from '../../app-credentials.decider.js';
import { appCredentialsStreamId, type StoredOAuthClient } from '../../app-credentials.events.js';
import { AppCredentialsRepository } from '../../app-credentials.repository.js';
import { appDecider } from '../../app.decider.js';
import { appStreamId } from '../../app.events.js';
import { inspectMcpServer, McpConnection, McpUnreachable, type McpClientLimits } from '../mcp-client.js';
import { appOAuthDecider, pendingAuthorization } from './app-oauth.decider.js';
import { appOAuthKeyGroup, appOAuthKeyId, appOAuthStreamId } from './app-oauth.events.js';
import { beginAuthorization, finishAuthorization } from './mcp-oauth-flow.js';
import { McpOAuthSession } from './mcp-oauth-session.js';
import { appOAuthFailed, connectionRequired, newOAuthState, sha256, stateTarget } from './oauth-state.js';

interface PendingSecrets {
  readonly codeVerifier: string;
  readonly discovery?: OAuthDiscoveryState;
  readonly returnTo: string;
}

/** How long a started authorization may be completed. */
const AUTHORIZATION_TTL_MS = 10 * 60_000;
export const APP_OAUTH_CALLBACK_PATH = '/api/v1/core/apps/oauth/callback';

@Injectable()
export class AppOAuthConnections {
  readonly limits: McpClientLimits;
  readonly redirectUrl: string;

  constructor(
    @Inject(PLATFORM_CONFIG) config: PlatformConfig,
    private readonly aggregates: AggregateRepository,
    private readonly cipher: ContentCipher,
    private readonly credentials: AppCredentialsRepository,
    @Inject(KEY_STORE) private readonly keys: KeyStore,
  ) {
    this.limits = { ...config.apps.mcp };
    this.redirectUrl = `${config.people.publicUrl}${APP_OAUTH_CALLBACK_PATH}`;
  }

  /** The active MCP App that authenticates with OAuth; 404 for any other id. */
  async app(appId: string) {
    const { state } = await this.aggregates.load(appStreamId(appId), appDecider);
    if (state.status !== 'active' || state.source.type !== 'mcp' || state.source.auth !== 'oauth')
      throw new NotFoundError('OAuth MCP App', appId);
    return { ...state, source: state.source };
  }

  async storedClient(appId: string): Promise<StoredOAuthClient | undefined> {
    const { state } = await this.aggregates.load(appCredentialsStreamId(appId), appCredentialsDecider);
    const opened = await this.cipher.open(state.oauthClientSealed ?? null);
    return opened ? (JSON.parse(opened) as StoredOAuthClient) : undefined;
  }

  /**
   * Registration's check of a server that signs in each person: its authorization server is found and, without a
   * pre-registered client, the platform's client registered there (answered to be kept sealed). 422
   * `app_unreachable` when no sign-in can begin.
   */
  async probe(
    url: string,
    scopes: readonly string[] | undefined,
    preRegistered: OAuthClientInformationMixed | undefined,
  ): Promise<StoredOAuthClient | undefined> {
    const session = new McpOAuthSession({
      redirectUrl: this.redirectUrl,
      state: randomBytes(24).toString('base64url'),
      ...(scopes ? { scopes } : {}),
      ...(preRegistered ? { client: preRegistered, preRegistered: true } : {}),
    });
    await this.authorizationUrl(url, session);
    if (preRegistered) return { client: preRegistered, preRegistered: true };
    return session.changes.client ? { client: session.changes.client, preRegistered: false } : undefined;
  }

  /** The authorization URL the person opens; their verifier and the state's hash recorded. */
  async start(appId: string, userId: string, returnTo: string, context: CommandContext): Promise<string> {
    const app = await this.app(appId);
    const stored = await this.storedClient(appId);
    const state = newOAuthState(appId, userId);
    const session = new McpOAuthSession({
      redirectUrl: this.redirectUrl,
      state,
      ...(app.source.scopes ? { scopes: app.source.scopes } : {}),
      ...(stored ? { client: stored.client, preRegistered: stored.preRegistered } : {}),
    });
    const authorizationUrl = await this.authorizationUrl(app.source.url, session);
    if (session.changes.client)
      await this.credentials.setMcpOAuthClient(
        appId,
        { client: session.changes.client, preRegistered: false },
        context,
      );
    const { state: connection } = await this.aggregates.load(
      appOAuthStreamId(appId, userId),
      appOAuthDecider,
    );
    const secrets: PendingSecrets = {
      codeVerifier: session.codeVerifier(),
      ...(session.changes.discovery ? { discovery: session.changes.discovery } : {}),
      returnTo,
    };
    const sealed = await this.cipher.seal(
      appOAuthKeyId(appId, userId, connection.generation),
      appOAuthKeyGroup(appId),
      JSON.stringify(secrets),
    );
    await this.aggregates.decide(
      appOAuthStreamId(appId, userId),
      appOAuthDecider,
      {
        type: 'StartAppOAuth',
        appId,
        userId,
        stateHash: sha256(state),
        sealed,
        expiresAt: new Date(context.now().getTime() + AUTHORIZATION_TTL_MS).toISOString(),
      },
      context,
    );
    return authorizationUrl.href;
  }

  /** The server's own 401 leads the SDK to its metadata (a server that asks for nothing: the well-known places). */
  private async authorizationUrl(url: string, session: McpOAuthSession): Promise<URL> {
    try {
      const connection = await McpConnection.open({ url, oauth: session }, this.limits);
      await connection.close();
      return await beginAuthorization(url, session, this.limits);
    } catch (error) {
      if (session.changes.authorizationUrl) return session.changes.authorizationUrl;
      if (error instanceof McpUnreachable) throw appOAuthFailed(error.reason);
      throw error;
    }
  }

  /**
   * The callback: the state must be the caller's pending authorization; the code is exchanged and the tokens
   * recorded. Answers where to send the person back, and the App; `error` when the authorization did not succeed.
   */
  async complete(
    query: { readonly state: string; readonly code?: string; readonly error?: string },
    callerUserId: string,
    context: CommandContext,
  ): Promise<{ appId: string; returnTo: string; error?: string }> {
    const { appId, userId } = stateTarget(query.state);
    if (userId !== callerUserId)
      throw new ValidationError(
        'invalid_state',
        'No authorization of yours is waiting for this state',
        'state',
      );
    const stream = appOAuthStreamId(appId, userId);
    const { state: connection } = await this.aggregates.load(stream, appOAuthDecider);
    const stateHash = sha256(query.state);
    const pending = pendingAuthorization(connection, stateHash, context.now().toISOString());
    const secrets = JSON.parse((await this.cipher.open(pending.sealed)) ?? 'null') as PendingSecrets | null;
    if (!secrets)
      throw new ValidationError('invalid_state', 'The authorization was erased: connect again', 'state');
    const fail = async (reason: string) => {
      await this.aggregates.decide(
        stream,
        appOAuthDecider,
        { type: 'FailAppOAuth', appId, userId, stateHash, reason },
        context,
      );
      return { appId, returnTo: secrets.returnTo, error: reason };
    };
    if (query.error || !query.code) return fail(query.error?.slice(0, 100) || 'no_code');
    const app = await this.app(appId);
    const stored = await this.storedClient(appId);
    const session = new McpOAuthSession({
      redirectUrl: this.redirectUrl,
      codeVerifier: secrets.codeVerifier,
      ...(secrets.discovery ? { discovery: secrets.discovery } : {}),
      ...(stored ? { client: stored.client, preRegistered: stored.preRegistered } : {}),
    });
    try {
      await finishAuthorization(app.source.url, session, query.code, this.limits);
    } catch (error) {
      if (error instanceof McpUnreachable) return fail('authorization_failed');
      throw error;
    }
    const sealed = await this.sealTokens(appId, userId, connection.generation, session.changes.tokens!);
    const at = context.now().toISOString();
    await this.aggregates.decide(
      stream,
      appOAuthDecider,
      { type: 'CompleteAppOAuth', appId, userId, stateHash, sealed, at },
      context,
    );
    if (!app.mcp) await this.readOffer(appId, app.source.url, userId, context);
    return { appId, returnTo: secrets.returnTo };
  }

  /** What the server offers, read with the person's tokens: the App's first connection fills its tools. */
  private async readOffer(appId: string, url: string, userId: string, context: CommandContext) {
    try {
      const offer = await inspectMcpServer(
        { url, oauth: await this.session(appId, 'the App', userId, context) },
        this.limits,
      );
      await this.aggregates.decide(
        appStreamId(appId),
        appDecider,
        { type: 'RecordMcpServerOffer', appId, offer, at: context.now().toISOString() },
        context,
      );
    } catch (error) {
      // The person is connected all the same; an admin's refresh reads the offer again.
      if (!(error instanceof McpUnreachable) && !(error instanceof PlatformError)) throw error;
    }
  }

  /** Ends the person's connection (or pending authorization) and destroys its data key. */
  async disconnect(appId: string, userId: string, context: CommandContext): Promise<void> {
    await this.app(appId);
    const stream = appOAuthStreamId(appId, userId);
    const { state } = await this.aggregates.load(stream, appOAuthDecider);
    await this.aggregates.decide(
      stream,
      appOAuthDecider,
      { type: 'DisconnectAppOAuth', appId, userId },
      context,
    );
    await this.keys.destroy(appOAuthKeyId(appId, userId, state.generation));
  }

  async status(appId: string, userId: string): Promise<{ connected: boolean; connectedAt: string | null }> {
    await this.app(appId);
    const { state } = await this.aggregates.load(appOAuthStreamId(appId, userId), appOAuthDecider);
    return { connected: state.tokensSealed !== null, connectedAt: state.connectedAt };
  }

  /** The session a call sends the person's tokens with; 422 `app_connection_required` without them. */
  async session(
    appId: string,
    appName: string,
    userId: string,
    context: CommandContext,
  ): Promise<McpOAuthSession> {
    const stream = appOAuthStreamId(appId, userId);
    const { state } = await this.aggregates.load(stream, appOAuthDecider);
    const opened = await this.cipher.open(state.tokensSealed);
    if (!opened) throw connectionRequired(appId, appName);
    const stored = await this.storedClient(appId);
    return new McpOAuthSession({
      redirectUrl: this.redirectUrl,
      tokens: (JSON.parse(opened) as { tokens: OAuthTokens }).tokens,
      ...(stored ? { client: stored.client, preRegistered: stored.preRegistered } : {}),
      onTokens: async (tokens) => {
        const sealed = await this.sealTokens(appId, userId, state.generation, tokens);
        await this.aggregates.decide(
          stream,
          appOAuthDecider,
          { type: 'RecordRefreshedAppOAuthTokens', appId, userId, sealed },
          context,
        );
      },
    });
  }

  private sealTokens(appId: string, userId: string, generation: number, tokens: OAuthTokens) {
    return this.cipher.seal(
      appOAuthKeyId(appId, userId, generation),
      appOAuthKeyGroup(appId),
      JSON.stringify({ tokens }),
    );
  }
}
