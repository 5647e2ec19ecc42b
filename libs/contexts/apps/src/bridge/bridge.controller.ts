// The bridge API (`/api/v1/bridge`, spec "App-facing paths"): what an App calls with its bearer token or a
// `svc_session_token`. Agent-targeted routes name the Agent in the path (the SDK binds it at construction); the
// guard builds an App caller whose allowlist holds that Agent only when the App's does, and the same commands and
// queries as the core API answer, so the one policy decides (403 `agent_access_denied` outside the allowlist; a
// session token also limited to what its person may use).
import { Body, Controller, Get, HttpCode, Param, Post, UseInterceptors } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { z } from 'zod';
import { ApiRoute, ZodBody } from '#http';
import { IdempotencyInterceptor } from '#identity';
import { CurrentCaller, type Caller } from '#access';
import { GetAgent } from '#agents';
import { FindConversations, FindConversationsFilter } from '#conversations';

export const BRIDGE = 'api/v1/bridge';

const BridgeAgent = z.object({ id: z.string(), name: z.string(), model: z.string() });

@UseInterceptors(IdempotencyInterceptor)
@Controller(`${BRIDGE}/agents/:agentId`)
export class BridgeAgentController {
  constructor(private readonly queries: QueryBus) {}

  @ApiRoute({
    tag: 'Bridge',
    summary: "The bridge's Agent (`agent.getAgent`)",
    description: 'Authenticated by the App token or a `svc_session_token` (`Authorization: Bearer`).',
    response: { status: 200, schema: BridgeAgent, description: 'The Agent' },
    errors: [
      401,
      { status: 403, description: "`agent_access_denied`: the Agent is outside the App's allowlist" },
      404,
    ],
  })
  @Get()
  async getAgent(@Param('agentId') agentId: string, @CurrentCaller() caller: Caller) {
    const agent = await this.queries.execute(new GetAgent(agentId, caller));
    return { id: agent.id, name: agent.name, model: agent.model };
  }

  @ApiRoute({
    tag: 'Bridge',
    summary: 'Find conversations with the Agent (`conversation.findMany`)',
    idempotent: true,
    description:
      "The person's (of a `svc_session_token`) conversations with the Agent: never incognito or private ones, " +
      'archived ones only with `where.archived: true`, never message bodies. An App token alone has none.',
    body: FindConversationsFilter,
    response: {
      status: 200,
      schema: z.object({ data: z.array(z.record(z.string(), z.unknown())) }),
      description: 'The conversations, with the selected fields',
    },
    errors: [
      400,
      401,
      { status: 403, description: "`agent_access_denied`: the Agent is outside the App's allowlist" },
    ],
  })
  @Post('conversations/find')
  @HttpCode(200)
  findConversations(
    @Param('agentId') agentId: string,
    @Body(new ZodBody(FindConversationsFilter.optional())) filter: FindConversationsFilter | undefined,
    @CurrentCaller() caller: Caller,
  ) {
    return this.queries.execute(new FindConversations(agentId, filter ?? {}, caller));
  }
}
