// The Apps context: the App registry (admin routes), container Apps, the allowlist process (run with the projectors,
// apps/projectors.ts), the authentication of bridge requests (AppCallers, asked by the access guard), the App proxy
// (its raw routes: AppProxyRoutes) and its session tokens, and the tools of MCP Apps in the turns of the Agents they
// are enabled for (a context provider), with the per-Agent settings of those tools. Global so that the guard finds the AppCallers it asks.
import { Global, Module, type OnModuleInit } from '@nestjs/common';
import { AppCallers } from '#access';
import { ContextProviders, ConversationsModule } from '#conversations';
import { AppContainers } from './app-containers.js';
import { AppCredentialsRepository } from './app-credentials.repository.js';
import { AppResolver } from './app-resolver.js';
import { AppSessionTokens } from './app-session-token.js';
import { AppProxyRoutes } from './proxy/app-proxy.routes.js';
import { BridgeCallers } from './bridge-callers.js';
import { McpServers } from './mcp/mcp-servers.js';
import { McpToolsContextProvider } from './mcp/mcp-tools.provider.js';
import { UrlAppClient } from './url/url-app-client.js';
import { McpListChanged } from './mcp/mcp-list-changed.js';
import { McpResourceWatcher } from './mcp/knowledge/mcp-resource-watcher.js';
import { BridgeAgentController } from './bridge/bridge.controller.js';
import { ChangeAppController } from './commands/change-app/change-app.controller.js';
import { ChangeAppHandler } from './commands/change-app/change-app.command.js';
import { DeleteAppController } from './commands/delete-app/delete-app.controller.js';
import { DeleteAppHandler } from './commands/delete-app/delete-app.command.js';
import { RefreshAppController } from './commands/refresh-app/refresh-app.controller.js';
import { RefreshAppHandler } from './commands/refresh-app/refresh-app.command.js';
import { SyncAppResourcesController } from './commands/sync-app-resources/sync-app-resources.controller.js';
import {
  ImportAppResourceHandler,
  SyncAppResourcesHandler,
} from './commands/sync-app-resources/sync-app-resources.command.js';
import { AppResources } from './mcp/knowledge/app-resources.js';
import { AppDocumentSources } from './mcp/knowledge/app-document-sources.js';
import { SyncedDocumentPlaces } from './mcp/knowledge/synced-document-places.js';
import { AppOAuthConnections } from './mcp/oauth/app-oauth-connections.repository.js';
import { ConnectAppAccountController } from './commands/connect-app-account/connect-app-account.controller.js';
import { RegisterAppController } from './commands/register-app/register-app.controller.js';
import { RegisterAppHandler } from './commands/register-app/register-app.command.js';
import { RotateAppTokenController } from './commands/rotate-app-token/rotate-app-token.controller.js';
import { RotateAppTokenHandler } from './commands/rotate-app-token/rotate-app-token.command.js';
import { ChangeAgentToolController } from './commands/change-agent-tool/change-agent-tool.controller.js';
import { ChangeAgentToolHandler } from './commands/change-agent-tool/change-agent-tool.command.js';
import { ListAgentToolsController } from './queries/list-agent-tools/list-agent-tools.controller.js';
import { ListAgentToolsHandler } from './queries/list-agent-tools/list-agent-tools.query.js';
import { AgentToolCatalog } from './agent-tool-catalog.js';
import { GetAppController } from './queries/get-app/get-app.controller.js';
import { GetAppViewController } from './queries/get-app-view/get-app-view.controller.js';
import { GetAppViewHandler } from './queries/get-app-view/get-app-view.query.js';
import { CallViewToolController } from './commands/call-view-tool/call-view-tool.controller.js';
import { CallViewToolHandler } from './commands/call-view-tool/call-view-tool.command.js';
import { GetAppHandler } from './queries/get-app/get-app.query.js';
import { ListAgentAppsController } from './queries/list-agent-apps/list-agent-apps.controller.js';
import { ListAgentAppsHandler } from './queries/list-agent-apps/list-agent-apps.query.js';
import { ListAppsController } from './queries/list-apps/list-apps.controller.js';
import { ListAppsHandler } from './queries/list-apps/list-apps.query.js';

export const APP_CONTROLLERS = [
  ListAppsController,
  RegisterAppController,
  GetAppController,
  ChangeAppController,
  RotateAppTokenController,
  RefreshAppController,
  SyncAppResourcesController,
  DeleteAppController,
  ListAgentAppsController,
  ListAgentToolsController,
  ChangeAgentToolController,
  BridgeAgentController,
  GetAppViewController,
  CallViewToolController,
  ConnectAppAccountController,
];

export const APP_COMMAND_HANDLERS = [
  RegisterAppHandler,
  ChangeAppHandler,
  RotateAppTokenHandler,
  RefreshAppHandler,
  ImportAppResourceHandler,
  SyncAppResourcesHandler,
  AppResources,
  AppDocumentSources,
  SyncedDocumentPlaces,
  DeleteAppHandler,
  ChangeAgentToolHandler,
  CallViewToolHandler,
];

export const APP_QUERY_HANDLERS = [
  ListAppsHandler,
  GetAppHandler,
  ListAgentAppsHandler,
  ListAgentToolsHandler,
  GetAppViewHandler,
];

@Global()
@Module({
  imports: [ConversationsModule],
  controllers: APP_CONTROLLERS,
  providers: [
    ...APP_COMMAND_HANDLERS,
    ...APP_QUERY_HANDLERS,
    AppCredentialsRepository,
    AppContainers,
    McpServers,
    AppOAuthConnections,
    AgentToolCatalog,
    McpToolsContextProvider,
    UrlAppClient,
    McpListChanged,
    McpResourceWatcher,
    AppSessionTokens,
    AppProxyRoutes,
    AppResolver,
    { provide: AppCallers, useClass: BridgeCallers },
  ],
  exports: [AppCallers, AppSessionTokens, McpServers],
})
export class AppsModule implements OnModuleInit {
  constructor(
    private readonly contextProviders: ContextProviders,
    private readonly mcpTools: McpToolsContextProvider,
  ) {}

  onModuleInit(): void {
    this.contextProviders.add(this.mcpTools);
  }
}
