// POST /agents (spec: Create an Agent).
import { Body, Controller, Post, UseInterceptors } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { z } from 'zod';
import { ApiRoute, ZodBody } from '#http';
import { IdempotencyInterceptor } from '#identity';
import { commandContext, CurrentCaller, principalOf, type Caller } from '#access';
import { ReadYourWritesBus } from '#eventsourcing';
import { AGENTS_READ_MODEL } from '../../agents.read-model.js';
import { AgentDto } from '../../queries/get-agent/agent.dto.js';
import { GetAgent } from '../../queries/get-agent/get-agent.query.js';
import { CreateAgent } from './create-agent.command.js';
import { CreateAgentBody } from './create-agent.schema.js';

@UseInterceptors(IdempotencyInterceptor)
@Controller('api/v1/core/agents')
export class CreateAgentController {
  constructor(
    private readonly writes: ReadYourWritesBus,
    private readonly queries: QueryBus,
  ) {}

  @ApiRoute({
    tag: 'Agents',
    summary: 'Create an Agent',
    body: CreateAgentBody,
    idempotent: true,
    response: { status: 201, schema: AgentDto, description: 'The created Agent' },
    errors: [
      {
        status: 400,
        description:
          '`invalid_model` (not a configured chat model), `unknown_space` (no such Space, or one this key cannot see)',
      },
      { status: 403, description: '`space_change_denied`: the key may not change that Space' },
    ],
  })
  @Post()
  async create(
    @Body(new ZodBody(CreateAgentBody)) body: z.output<typeof CreateAgentBody>,
    @CurrentCaller() caller: Caller,
  ) {
    const { spaceId, ...settings } = body;
    const { id } = await this.writes.send(
      new CreateAgent(
        { spaceId, isPersonal: false, ownerUserId: null, settings },
        commandContext(caller),
        principalOf(caller),
      ),
      [AGENTS_READ_MODEL],
    );
    return this.queries.execute(new GetAgent(id, caller));
  }
}
