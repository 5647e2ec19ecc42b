// POST /llm/{agentId}/conversation/{conversationId}/stop (extension).
import { Controller, HttpCode, Param, Post, UseInterceptors } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { z } from 'zod';
import { ApiRoute } from '#http';
import { IdempotencyInterceptor } from '#identity';
import { CurrentCaller, principalOf, type Caller } from '#access';
import { StopTurn } from './stop-turn.command.js';

@UseInterceptors(IdempotencyInterceptor)
@Controller('api/v1/core/llm/:agentId/conversation/:conversationId/stop')
export class StopTurnController {
  constructor(private readonly bus: CommandBus) {}

  @ApiRoute({
    tag: 'Conversations',
    summary: "Stop the conversation's running turn (extension)",
    idempotent: true,
    description:
      'For a turn sent with `continueOnDisconnect` (it outlives its client): its model call is aborted, and the turn ' +
      'is recorded incomplete. `stopped` is false when no turn of the conversation runs on this api process.',
    response: {
      status: 200,
      schema: z.object({ stopped: z.boolean() }),
      description: 'Whether a turn was stopped',
    },
    errors: [403, { status: 404, description: '`conversation_not_found`' }],
  })
  @Post()
  @HttpCode(200)
  stop(
    @Param('agentId') agentId: string,
    @Param('conversationId') conversationId: string,
    @CurrentCaller() caller: Caller,
  ) {
    return this.bus.execute(new StopTurn(agentId, conversationId, principalOf(caller)));
  }
}
