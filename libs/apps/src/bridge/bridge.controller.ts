// The bridge API (`/api/v1/bridge`, spec "App-facing paths"): what an App calls with its bearer token or a
// `svc_session_token`. Agent-targeted routes name the Agent in the path (the SDK binds it at construction); the
// guard builds an App caller whose allowlist holds that Agent only when the App's does, and the same commands and
// queries as the core API answer, so the one policy decides (403 `agent_access_denied` outside the allowlist; a
// session token also limited to what its person may use).
import { Body, Controller, Get, HttpCode, Param, Post, Res } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { ApiRoute, parseOrThrow } from '#http';
import { AcceptsAppToken, CurrentCaller, type Caller } from '#identity';
import { GetAgent } from '#agents';
import { abortOnDisconnect } from '#model-gateway';
import { GenerateText, GenerateTextBody, rejectInstructionRoles, TextResultDto } from '#agent-generation';

export const BRIDGE = 'api/v1/bridge';

const BridgeAgent = z.object({ id: z.string(), name: z.string(), model: z.string() });

@AcceptsAppToken()
@Controller(`${BRIDGE}/agents/:agentId`)
export class BridgeAgentController {
  constructor(
    private readonly queries: QueryBus,
    private readonly bus: CommandBus,
  ) {}

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
    summary: 'Generate text as the Agent (`llm.generateText`)',
    body: GenerateTextBody,
    response: { status: 200, schema: TextResultDto, description: "The model's answer" },
    errors: [
      400,
      401,
      { status: 403, description: "`agent_access_denied`: the Agent is outside the App's allowlist" },
      404,
    ],
  })
  @Post('llm/generateText')
  @HttpCode(200)
  generateText(
    @Param('agentId') agentId: string,
    @Body() raw: unknown,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const signal = abortOnDisconnect(reply);
    rejectInstructionRoles(raw);
    return this.bus.execute(new GenerateText(agentId, parseOrThrow(GenerateTextBody, raw), caller, signal));
  }
}
