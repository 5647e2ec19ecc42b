// An MCP App view's document for a person who may use the Agent: the `ui://` resource one of the tools of an App
// enabled for the Agent declares (any other URI is 404, so the route reads nothing else of the server), read through
// the platform's MCP client, HTML of at most MCP_VIEW_MAX_KB, with the CSP its resource declares (mcp-app-view.ts).
import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { Requires, type Principal } from '#access';
import { AgentResolver } from '#agents';
import { PLATFORM_CONFIG, PlatformError, type PlatformConfig } from '#kernel';
import { AgentToolCatalog, isMcpApp } from '../../agent-tool-catalog.js';
import { McpServers } from '../../mcp/mcp-servers.js';
import { toolView, viewCsp } from '../../mcp/mcp-app-view.js';

export interface AppViewDocument {
  readonly html: string;
  readonly csp: string;
}

export const appViewNotFound = (uri: string): PlatformError =>
  new PlatformError(
    'not_found',
    'app_view_not_found',
    `No tool of this App declares the view '${uri.slice(0, 200)}'`,
    'uri',
  );

@Requires(AgentResolver, (agents, { agentId }: GetAppView) => agents.use(agentId))
export class GetAppView extends Query<AppViewDocument> {
  constructor(
    readonly agentId: string,
    readonly appId: string,
    readonly uri: string,
    readonly principal: Principal,
  ) {
    super();
  }
}

@QueryHandler(GetAppView)
export class GetAppViewHandler implements IQueryHandler<GetAppView> {
  constructor(
    private readonly catalog: AgentToolCatalog,
    private readonly servers: McpServers,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
  ) {}

  async execute({ agentId, appId, uri }: GetAppView): Promise<AppViewDocument> {
    const tool = (await this.catalog.tools(agentId)).find(
      (candidate) => candidate.app.id === appId && toolView(candidate.offer) === uri,
    );
    // Only an MCP App's tools have views (a `ui://` resource of its server).
    if (!tool || !isMcpApp(tool.app)) throw appViewNotFound(uri);
    const connection = await this.servers.connect(tool.app.id, tool.app.source);
    let read: Awaited<ReturnType<typeof connection.readResource>>;
    try {
      read = await connection.readResource(uri);
    } catch (error) {
      throw new PlatformError('unprocessable', 'app_unreachable', (error as Error).message, 'uri');
    } finally {
      await connection.close();
    }
    if (read === 'gone') throw appViewNotFound(uri);
    if (!/^text\/html\b/i.test(read.mimeType ?? ''))
      throw new PlatformError(
        'unprocessable',
        'app_view_not_html',
        `The view '${uri.slice(0, 200)}' is not HTML (${(read.mimeType ?? 'no type').slice(0, 100)})`,
        'uri',
      );
    const maxBytes = this.config.apps.mcpViewMaxBytes;
    if (Buffer.byteLength(read.text) > maxBytes)
      throw new PlatformError(
        'unprocessable',
        'app_view_too_large',
        `The view is larger than ${Math.floor(maxBytes / 1024)} KB (MCP_VIEW_MAX_KB)`,
        'uri',
      );
    return { html: read.text, csp: viewCsp(read.meta, new URL(this.config.people.publicUrl).origin) };
  }
}
