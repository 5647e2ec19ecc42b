// The Apps enabled for an Agent (its allowlist documents, kept by AppAllowlistProcess) with the views its chat may
// show, and its MCP servers and other Apps with tools but no views (the chat names them beside the tool calls of an
// answer): a person who uses the Agent asks (the policy's `app.view`). Each view's `url` is where the chat's sandboxed
// iframe points: the App origin (APP_ORIGIN) when one is configured, else the proxy's path on the platform's origin.
// On the App origin the platform's session cookie is not sent (another site), so for a person signed in with a
// session each view's URL carries a ticket: a `svc_session_token` of this App and this person (short-lived, ending
// with the session), which the proxy takes there in the cookie's place for that App only.
// Nothing of the App's source, token or errors is answered, but for an MCP App that signs in each person where they
// connect their account (`connectUrl`, as a turn's `tool_auth_required` names it).
import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { Requires, type Principal } from '#access';
import { PLATFORM_CONFIG, type PlatformConfig } from '#kernel';
import { READ_STORE, type ReadStore } from '#read-store';
import { APP_ALLOWLIST, APPS, type AppAllowlistEntry, type AppView } from '../../apps.read-model.js';
import { AppSessionTokens } from '../../app-session-token.js';
import { AppResolver } from '../../app-resolver.js';
import { appOAuthConnectPath } from '../../mcp/oauth/oauth-state.js';

export interface AgentAppView {
  readonly id: string;
  readonly title: string;
  readonly path: string;
  readonly url: string;
}

export interface AgentApps {
  /** The origin the views are served on: APP_ORIGIN, or null (the platform's own, each view an opaque origin). */
  readonly appOrigin: string | null;
  readonly data: {
    readonly id: string;
    readonly name: string;
    readonly views: AgentAppView[];
    readonly connectUrl?: string;
  }[];
}

@Requires(AppResolver, (apps, { agentId }: ListAgentApps) => apps.view(agentId))
export class ListAgentApps extends Query<AgentApps> {
  constructor(
    readonly agentId: string,
    readonly principal: Principal,
    /** The session of the person asking (a cookie), or null: the views' tickets on APP_ORIGIN are issued for it. */
    readonly session: { readonly userId: string; readonly sessionId: string } | null = null,
  ) {
    super();
  }
}

/** An Agent's allowlist is bounded by the Apps registered; a page this size is read at a time. */
const PAGE = 200;

@QueryHandler(ListAgentApps)
export class ListAgentAppsHandler implements IQueryHandler<ListAgentApps> {
  constructor(
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
    private readonly tokens: AppSessionTokens,
  ) {}

  async execute({ agentId, session }: ListAgentApps): Promise<AgentApps> {
    const appOrigin = this.config.apps.appOrigin;
    const allowlist = this.readStore.reader<AppAllowlistEntry>(APP_ALLOWLIST);
    const apps = this.readStore.reader<AppView>(APPS);
    const data: AgentApps['data'][number][] = [];
    let cursor: string | null = null;
    do {
      const page = await allowlist.find({ agentId }, { limit: PAGE, cursor });
      for (const entry of page.data) {
        const app = await apps.get(entry.appId);
        const viewless = app?.meta && (app.meta.standalone || app.meta.views.length === 0);
        if (app?.source.type === 'mcp' || (viewless && app.meta!.tools.length > 0)) {
          // No views, but the chat names the App whose tools an answer called.
          data.push({
            id: app.id,
            name: app.name,
            views: [],
            ...(app.source.type === 'mcp' && app.source.auth === 'oauth'
              ? { connectUrl: appOAuthConnectPath(app.id) }
              : {}),
          });
          continue;
        }
        if (!app?.meta || viewless) continue;
        const base = `/app/${app.id}`;
        const ticket =
          appOrigin !== null && session !== null
            ? `svc_session_token=${encodeURIComponent(await this.tokens.issue(app.id, session.userId, session.sessionId))}`
            : null;
        data.push({
          id: app.id,
          name: app.name,
          views: app.meta.views.map((view) => {
            const path = view.path.startsWith('/') ? view.path : `/${view.path}`;
            const query = ticket === null ? '' : `${path.includes('?') ? '&' : '?'}${ticket}`;
            return { id: view.id, title: view.title, path, url: `${appOrigin ?? ''}${base}${path}${query}` };
          }),
        });
      }
      cursor = page.nextCursor;
    } while (cursor);
    data.sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
    return { appOrigin, data };
  }
}
