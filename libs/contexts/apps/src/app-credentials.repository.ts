// The write repository of an App's credentials (a container App's registry credentials, an MCP server's bearer
// token or OAuth client): seal, then decide and append on their own stream. It serves no reads; the container starter (AppContainers)
// and the MCP servers' client (McpServers) open them when they need them.
import { Inject, Injectable } from '@nestjs/common';
import { AggregateRepository, type CommandContext } from '#eventsourcing';
import { ContentCipher, KEY_STORE, type KeyStore } from '#key-store';
import {
  appCredentialsKeyId,
  appCredentialsStreamId,
  type RegistryCredentials,
  type StoredOAuthClient,
} from './app-credentials.events.js';
import { appCredentialsDecider } from './app-credentials.decider.js';
import { appOAuthKeyGroup } from './mcp/oauth/app-oauth.events.js';

const GROUP = 'app-credentials';

@Injectable()
export class AppCredentialsRepository {
  constructor(
    private readonly aggregates: AggregateRepository,
    private readonly cipher: ContentCipher,
    @Inject(KEY_STORE) private readonly keys: KeyStore,
  ) {}

  async set(appId: string, credentials: RegistryCredentials, context: CommandContext) {
    const sealed = await this.cipher.seal(appCredentialsKeyId(appId), GROUP, JSON.stringify(credentials));
    return this.aggregates.decide(
      appCredentialsStreamId(appId),
      appCredentialsDecider,
      { type: 'SetAppRegistryCredentials', appId, sealed },
      context,
    );
  }

  async setMcpBearer(appId: string, token: string, context: CommandContext) {
    const sealed = await this.cipher.seal(appCredentialsKeyId(appId), GROUP, token);
    return this.aggregates.decide(
      appCredentialsStreamId(appId),
      appCredentialsDecider,
      { type: 'SetAppMcpBearerToken', appId, sealed },
      context,
    );
  }

  async setMcpOAuthClient(appId: string, client: StoredOAuthClient, context: CommandContext) {
    const sealed = await this.cipher.seal(appCredentialsKeyId(appId), GROUP, JSON.stringify(client));
    return this.aggregates.decide(
      appCredentialsStreamId(appId),
      appCredentialsDecider,
      { type: 'SetAppMcpOAuthClient', appId, sealed },
      context,
    );
  }

  /** Removes them, and destroys their data key: the sealed copies in the log can never be opened again. */
  async remove(appId: string, context: CommandContext) {
    const result = await this.aggregates.decide(
      appCredentialsStreamId(appId),
      appCredentialsDecider,
      { type: 'RemoveAppRegistryCredentials', appId },
      context,
    );
    await this.keys.destroy(appCredentialsKeyId(appId));
    // Every person's OAuth connection to the App goes with it.
    await this.keys.destroyGroup(appOAuthKeyGroup(appId));
    return result;
  }
}
