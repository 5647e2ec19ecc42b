// PUT /agents/{agentId}/prompt (spec: Update the Agent's system prompt).
import { Body, Controller, Param, Put } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { z } from 'zod';
import { ApiRoute, ZodBody } from '#http';
import { commandContext, CurrentCaller, principalOf, type Caller } from '#access';
import { ReadYourWritesBus } from '#eventsourcing';
import { AGENTS_READ_MODEL } from '../../agents.read-model.js';
import { AgentDto } from '../../queries/get-agent/agent.dto.js';
import { GetAgent } from '../../queries/get-agent/get-agent.query.js';
import { ChangeAgentPrompt } from './change-agent-prompt.command.js';
import { ChangeAgentPromptBody } from './change-agent-prompt.schema.js';

@Controller('api/v1/core/agents')
export class ChangeAgentPromptController {
  constructor(
    private readonly writes: ReadYourWritesBus,
    private readonly queries: QueryBus,
  ) {}

  @ApiRoute({
    tag: 'Agents',
    summary: "Update the Agent's system prompt",
    body: ChangeAgentPromptBody,
    response: { status: 200, schema: AgentDto, description: 'The updated Agent' },
    errors: [
      400,
      {
        status: 403,
        description:
          '`agent_access_denied`: the key is not granted the Agent; `space_change_denied`: it is granted the Agent ' +
          'but may not manage it (managing needs the right to change its Space; admins always; a personal Agent its ' +
          'own user only)',
      },
      404,
    ],
  })
  @Put(':agentId/prompt')
  async changePrompt(
    @Param('agentId') agentId: string,
    @Body(new ZodBody(ChangeAgentPromptBody)) body: z.output<typeof ChangeAgentPromptBody>,
    @CurrentCaller() caller: Caller,
  ) {
    await this.writes.send(
      new ChangeAgentPrompt(agentId, body.systemPrompt, commandContext(caller), principalOf(caller)),
      [AGENTS_READ_MODEL],
    );
    return this.queries.execute(new GetAgent(agentId, caller));
  }
}
