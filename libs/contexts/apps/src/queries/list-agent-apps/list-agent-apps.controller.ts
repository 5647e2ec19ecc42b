// GET /agents/{agentId}/apps (our design): the Apps of an Agent whose views its chat shows, and its MCP servers (whose
// names it shows beside their tools' calls), for whoever uses the Agent as a person.
import { Controller, Get, Param } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { z } from 'zod';
import { ApiRoute } from '#http';
import { CurrentCaller, principalOf, type Caller } from '#access';
import { ListAgentApps } from './list-agent-apps.query.js';

const AgentAppsDto = z.object({
  appOrigin: z
    .string()
    .nullable()
    .describe("APP_ORIGIN, where the views are served; null: the platform's origin (each view sandboxed)"),
  data: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      views: z.array(
        z.object({
          id: z.string(),
          title: z.string(),
          path: z.string(),
          url: z
            .string()
            .describe(
              "Where the chat's sandboxed iframe points; on APP_ORIGIN, for a session, with the person's ticket for this App (`svc_session_token`)",
            ),
        }),
      ),
      connectUrl: z
        .string()
        .optional()
        .describe(
          'An MCP App that signs in each person (OAuth): where they start connecting their account ' +
            '(`POST`, as `tool_auth_required` names it); `GET /apps/{appId}/oauth/connection` says whether they did',
        ),
    }),
  ),
});

@Controller('api/v1/core/agents/:agentId/apps')
export class ListAgentAppsController {
  constructor(private readonly queries: QueryBus) {}

  @ApiRoute({
    tag: 'Apps',
    summary: 'The Apps enabled for an Agent, with the views its chat shows',
    description:
      'The Apps with views, and the MCP servers (`views` empty) whose tools its turns offer as `<appId>__<tool>`: ' +
      'their names are what a chat shows beside a tool call.',
    response: {
      status: 200,
      schema: AgentAppsDto,
      description: 'The Apps with views, and MCP servers, by name',
    },
    errors: [{ status: 403, description: '`agent_access_denied`, `principal_not_supported`' }, 404],
  })
  @Get()
  list(@Param('agentId') agentId: string, @CurrentCaller() caller: Caller) {
    const session = caller.session ? { userId: caller.userId, sessionId: caller.session.id } : null;
    return this.queries.execute(new ListAgentApps(agentId, principalOf(caller), session));
  }
}
