// PUT /agents/{agentId} (spec: Update an Agent).
import { Body, Controller, Param, Put } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { z } from 'zod';
import { ApiRoute, ZodBody } from '#http';
import { commandContext, CurrentCaller, principalOf, type Caller } from '#access';
import { ReadYourWritesBus } from '#eventsourcing';
import { AGENTS_READ_MODEL } from '../../agents.read-model.js';
import { AgentDto } from '../../queries/get-agent/agent.dto.js';
import { GetAgent } from '../../queries/get-agent/get-agent.query.js';
import { ChangeAgent } from './change-agent.command.js';
import { ChangeAgentBody } from './change-agent.schema.js';

@Controller('api/v1/core/agents')
export class ChangeAgentController {
  constructor(
    private readonly writes: ReadYourWritesBus,
    private readonly queries: QueryBus,
  ) {}

  @ApiRoute({
    tag: 'Agents',
    summary: 'Update an Agent',
    description:
      'Partial: fields left out keep their value. Each changed setting is recorded as its own event. Needs the right ' +
      'to manage the Agent (to change its Space); a move also needs the right to change the target Space. A ' +
      'personal Agent cannot be made public (400 `personal_agent_cannot_be_public`).',
    body: ChangeAgentBody,
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
  @Put(':agentId')
  async change(
    @Param('agentId') agentId: string,
    @Body(new ZodBody(ChangeAgentBody)) body: z.output<typeof ChangeAgentBody>,
    @CurrentCaller() caller: Caller,
  ) {
    const { spaceId, ...settings } = body;
    await this.writes.send(
      new ChangeAgent(agentId, { spaceId, settings }, commandContext(caller), principalOf(caller)),
      [AGENTS_READ_MODEL],
    );
    return this.queries.execute(new GetAgent(agentId, caller));
  }
}
