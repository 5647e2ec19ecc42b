// The api's side of MCP Apps: the platform's MCP client with the configured bounds, an App's bearer token opened from
// its sealed stream only for the call that sends it, or — an App that signs in as each person (OAuth) — the tokens
// of the person on whose behalf it is reached (422 `app_connection_required` when they have none, or the server no
// longer takes them), and a server that cannot be read answered as 422 `app_unreachable` (with a reason that names
// no secret).
import { Inject, Injectable } from '@nestjs/common';
import { AggregateRepository, type CommandContext } from '#eventsourcing';
import { ContentCipher } from '#key-store';
import { PLATFORM_CONFIG, PlatformError, type PlatformConfig } from '#kernel';
import { appCredentialsDecider } from '../app-credentials.decider.js';
import { appCredentialsStreamId } from '../app-credentials.events.js';
import {
  inspectMcpServer,
  McpConnection,
  McpUnreachable,
  type McpClientLimits,
  type McpTarget,
} from './mcp-client.js';
import type { McpOffer } from './mcp-offer.js';
import type { McpSessionHost } from './mcp-session.js';
import { AppOAuthConnections } from './oauth/app-oauth-connections.repository.js';
import { connectionRequired } from './oauth/oauth-state.js';
import type { McpOAuthSession } from './oauth/mcp-oauth-session.js';

/** An MCP App's source as the client needs it. */
export interface McpSource {
  readonly url: string;
  readonly auth: 'none' | 'bearer' | 'oauth';
}

/** The person an App that signs in as each person is reached for, and the context their refreshed tokens are kept in. */
export interface McpPerson {
  readonly userId: string;
  readonly context: CommandContext;
  /** The App's name, for the message that asks the person to connect. */
  readonly appName: string;
}

/** The MCP client's bounds as configured (the CLI reads the same configuration). */
export const mcpClientLimits = (config: PlatformConfig): McpClientLimits => ({ ...config.apps.mcp });

export const appUnreachable = (reason: string): PlatformError =>
  new PlatformError(
    'unprocessable',
    'app_unreachable',
    `The MCP server could not be used: ${reason}`,
    'source.url',
  );

@Injectable()
export class McpServers {
  readonly limits: McpClientLimits;

  constructor(
    @Inject(PLATFORM_CONFIG) config: PlatformConfig,
    private readonly aggregates: AggregateRepository,
    private readonly cipher: ContentCipher,
    private readonly oauth: AppOAuthConnections,
  ) {
    this.limits = mcpClientLimits(config);
  }

  /** What the server at `target` offers; 422 `app_unreachable` when it cannot be read. */
  async inspect(target: McpTarget): Promise<McpOffer> {
    try {
      return await inspectMcpServer(target, this.limits);
    } catch (error) {
      if ((target.oauth as McpOAuthSession | undefined)?.changes.authorizationUrl)
        throw appUnreachable('the server no longer takes your account: connect again');
      if (error instanceof McpUnreachable) throw appUnreachable(error.reason);
      throw error;
    }
  }

  /** The registered App's server as the platform reaches it: its URL and its bearer token or the person's tokens. */
  async target(appId: string, source: McpSource, person?: McpPerson): Promise<McpTarget> {
    if (source.auth === 'none') return { url: source.url };
    if (source.auth === 'oauth') {
      if (!person) throw appUnreachable('it signs in as each person, and no person is reaching it here');
      return {
        url: source.url,
        oauth: await this.oauth.session(appId, person.appName, person.userId, person.context),
      };
    }
    const { state } = await this.aggregates.load(appCredentialsStreamId(appId), appCredentialsDecider);
    const bearer = await this.cipher.open(state.bearerSealed ?? null);
    if (!bearer) throw appUnreachable('its bearer token is no longer stored');
    return { url: source.url, bearer };
  }

  /**
   * A connection to the App's server, for calls (`host` serves what the server asks during them; `person`: whose
   * account an App that signs in each person is reached with); 422 `app_unreachable` when it cannot be opened.
   */
  async connect(appId: string, source: McpSource, person?: McpPerson, host?: McpSessionHost) {
    const target = await this.target(appId, source, person);
    try {
      return await McpConnection.open(target, this.limits, host);
    } catch (error) {
      // The person's tokens were refused and could not be refreshed: the SDK asked for a new sign-in.
      if (person && (target.oauth as McpOAuthSession | undefined)?.changes.authorizationUrl)
        throw connectionRequired(appId, person.appName);
      if (error instanceof McpUnreachable) throw appUnreachable(error.reason);
      throw error;
    }
  }
}
