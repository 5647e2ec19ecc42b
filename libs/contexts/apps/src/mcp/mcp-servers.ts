// The api's side of MCP Apps: the platform's MCP client with the configured bounds, an App's bearer token opened from
// its sealed stream only for the call that sends it, and a server that cannot be read answered as 422
// `app_unreachable` (with a reason that names no secret).
import { Inject, Injectable } from '@nestjs/common';
import { AggregateRepository } from '#eventsourcing';
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
  ) {
    this.limits = mcpClientLimits(config);
  }

  /** What the server at `target` offers; 422 `app_unreachable` when it cannot be read. */
  async inspect(target: McpTarget): Promise<McpOffer> {
    try {
      return await inspectMcpServer(target, this.limits);
    } catch (error) {
      if (error instanceof McpUnreachable) throw appUnreachable(error.reason);
      throw error;
    }
  }

  /** The registered App's server as the platform reaches it: its URL and, when it has one, its bearer token. */
  async target(appId: string, source: { readonly url: string; readonly auth: 'none' | 'bearer' }) {
    if (source.auth === 'none') return { url: source.url };
    const { state } = await this.aggregates.load(appCredentialsStreamId(appId), appCredentialsDecider);
    const bearer = await this.cipher.open(state.bearerSealed ?? null);
    if (!bearer) throw appUnreachable('its bearer token is no longer stored');
    return { url: source.url, bearer };
  }

  /**
   * A connection to the App's server, for calls (`host` serves what the server asks during them); 422
   * `app_unreachable` when it cannot be opened.
   */
  async connect(
    appId: string,
    source: { readonly url: string; readonly auth: 'none' | 'bearer' },
    host?: McpSessionHost,
  ) {
    try {
      return await McpConnection.open(await this.target(appId, source), this.limits, host);
    } catch (error) {
      if (error instanceof McpUnreachable) throw appUnreachable(error.reason);
      throw error;
    }
  }
}
