// Registering an App (admins): its source, where it is enabled, a new bearer token (answered once, kept hashed), and
// its registry credentials sealed in a stream of their own. Reading its `/meta` (and starting its container) is the
// RefreshApp command the route sends next. An MCP server is read first (initialize and its lists): one that cannot
// be read is 422 `app_unreachable` with nothing written; otherwise its bearer token is sealed apart and the App is
// registered together with what the server offers. A server that signs in each person (OAuth) offers nothing before
// someone connects: its authorization server is found (and the platform's client registered there, unless an admin
// gave one) and the App registered without an offer; the first person's connection reads it.
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { AggregateRepository, newEntityId, type CommandContext, type WriteResult } from '#eventsourcing';
import { Requires, type Principal } from '#access';
import { manageApps } from '../../app-resolver.js';
import { appDecider } from '../../app.decider.js';
import { appStreamId, type AppEnablement, type AppSource } from '../../app.events.js';
import type { RegistryCredentials } from '../../app-credentials.events.js';
import { AppCredentialsRepository } from '../../app-credentials.repository.js';
import { hashAppToken, newAppToken } from '../../app-token.js';
import { McpServers } from '../../mcp/mcp-servers.js';
import type { McpOffer } from '../../mcp/mcp-offer.js';
import { AppOAuthConnections } from '../../mcp/oauth/app-oauth-connections.repository.js';

/** An App's source as an admin gives it: an MCP server's with its authentication (the secret included). */
export type RegisterAppSource =
  | Exclude<AppSource, { readonly type: 'mcp' }>
  | {
      readonly type: 'mcp';
      readonly url: string;
      readonly auth:
        | { readonly type: 'none' }
        | { readonly type: 'bearer'; readonly token: string }
        | {
            readonly type: 'oauth';
            readonly clientId?: string;
            readonly clientSecret?: string;
            readonly scopes?: readonly string[];
          };
    };

export interface RegisterAppInput {
  readonly name: string;
  readonly source: RegisterAppSource;
  readonly enablement: AppEnablement;
  readonly registryCredentials?: RegistryCredentials;
}

@Requires(manageApps)
export class RegisterApp extends Command<WriteResult & { readonly token: string }> {
  constructor(
    readonly input: RegisterAppInput,
    readonly context: CommandContext,
    readonly principal: Principal,
  ) {
    super();
  }
}

@CommandHandler(RegisterApp)
export class RegisterAppHandler implements ICommandHandler<RegisterApp> {
  constructor(
    private readonly aggregates: AggregateRepository,
    private readonly credentials: AppCredentialsRepository,
    private readonly mcp: McpServers,
    private readonly oauth: AppOAuthConnections,
  ) {}

  async execute({ input, context }: RegisterApp) {
    const appId = newEntityId(context, 'app');
    const token = newAppToken();
    let source: AppSource;
    let mcpServer: { readonly offer: McpOffer; readonly readAt: string } | undefined;
    if (input.source.type === 'mcp' && input.source.auth.type === 'oauth') {
      const { url, auth } = input.source;
      const { clientId, clientSecret, scopes } = auth;
      const given = clientId
        ? { client_id: clientId, ...(clientSecret ? { client_secret: clientSecret } : {}) }
        : undefined;
      const client = await this.oauth.probe(url, scopes, given);
      if (client) await this.credentials.setMcpOAuthClient(appId, client, context);
      source = { type: 'mcp', url, auth: 'oauth', ...(scopes ? { scopes } : {}) };
    } else if (input.source.type === 'mcp') {
      const { url, auth } = input.source;
      const bearer = auth.type === 'bearer' ? auth.token : undefined;
      const offer = await this.mcp.inspect(bearer ? { url, bearer } : { url });
      mcpServer = { offer, readAt: context.now().toISOString() };
      if (bearer) await this.credentials.setMcpBearer(appId, bearer, context);
      source = { type: 'mcp', url, auth: auth.type as 'none' | 'bearer' };
    } else source = input.source;
    if (input.registryCredentials) await this.credentials.set(appId, input.registryCredentials, context);
    const result = await this.aggregates.decide(
      appStreamId(appId),
      appDecider,
      {
        type: 'RegisterApp',
        appId,
        name: input.name,
        source,
        enablement: input.enablement,
        tokenHash: hashAppToken(token),
        ...(mcpServer ? { mcpServer } : {}),
      },
      context,
    );
    return { id: appId, position: result.position, token };
  }
}
