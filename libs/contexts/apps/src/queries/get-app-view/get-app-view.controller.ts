// GET /mcp-views/{agentId}/{appId}?uri=ui://… (our design): an MCP App view's HTML, framed by the chat. The
// answer is a document in a CSP sandbox (an opaque origin: none of the platform's cookies or storage), never cached,
// never sniffed, sending no referrer.
import { Controller, Get, Param, Query, Res } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { ApiRoute, ZodQuery } from '#http';
import { CurrentCaller, principalOf, type Caller } from '#access';
import { GetAppView } from './get-app-view.query.js';

export const AppViewQuery = z
  .object({
    uri: z
      .string()
      .regex(/^ui:\/\/\S{1,2000}$/, 'a ui:// URI')
      .describe('The `ui://` resource a tool of the App declares (`_meta.ui.resourceUri`)'),
  })
  .strict();

@Controller('api/v1/core/mcp-views/:agentId/:appId')
export class GetAppViewController {
  constructor(private readonly queries: QueryBus) {}

  @ApiRoute({
    tag: 'Apps',
    summary: "An MCP App view's document (extension)",
    description:
      'The HTML of a `ui://` resource that a tool of an MCP App enabled for the Agent declares as its view, read ' +
      "from the App's server, for a chat to frame. Served with a CSP sandbox (`allow-scripts allow-forms`, no " +
      "`allow-same-origin`) and the connect, resource and frame domains the resource's `_meta.ui.csp` declares; " +
      'nothing else is reachable from it.',
    query: AppViewQuery,
    response: { status: 200, description: 'The view, `text/html`' },
    errors: [
      400,
      { status: 403, description: '`agent_access_denied`' },
      {
        status: 404,
        description: '`app_view_not_found`: no tool of this App enabled for the Agent declares it',
      },
      {
        status: 422,
        description: '`app_unreachable`, `app_view_not_html`, `app_view_too_large` (MCP_VIEW_MAX_KB)',
      },
    ],
  })
  @Get()
  async view(
    @Param('agentId') agentId: string,
    @Param('appId') appId: string,
    @Query(new ZodQuery(AppViewQuery)) query: z.output<typeof AppViewQuery>,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const view = await this.queries.execute(new GetAppView(agentId, appId, query.uri, principalOf(caller)));
    void reply
      .header('content-type', 'text/html; charset=utf-8')
      .header('content-security-policy', view.csp)
      .header('cache-control', 'no-store')
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer')
      .header('cross-origin-resource-policy', 'same-origin');
    return view.html;
  }
}
