// GET /llm/{agentId}/conversation/{conversationId}/sandbox (our design).
import { Controller, Get, Param } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiRoute } from '#http';
import { CurrentCaller, type Caller } from '#access';
import { GetSandbox } from './get-sandbox.query.js';

@Controller('api/v1/core/llm/:agentId/conversation/:conversationId/sandbox')
export class GetSandboxController {
  constructor(private readonly queries: QueryBus) {}

  @ApiRoute({
    tag: 'Conversations',
    summary: "A conversation's code sandbox (extension)",
    description:
      'Its state (active or destroyed, and why: idle_timeout, hard_timeout, conversation_deleted), the Skills placed in ' +
      'it, and every run_code call: language, code, exit code, duration, timed out, truncated, output (capped), files.',
    errors: [
      403,
      { status: 404, description: '`conversation_not_found`, or `sandbox_not_found` (no code ran yet)' },
    ],
  })
  @Get()
  get(
    @Param('agentId') agentId: string,
    @Param('conversationId') conversationId: string,
    @CurrentCaller() caller: Caller,
  ) {
    return this.queries.execute(new GetSandbox(agentId, conversationId, caller));
  }
}
