// GET /llm/{agentId}/conversation/{conversationId}/tool-calls (our design): the calls waiting for the person's approval.
import { Controller, Get, Param } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { z } from 'zod';
import { ApiRoute } from '#http';
import { CurrentCaller, principalOf, type Caller } from '#access';
import { ListWaitingToolCalls } from './list-waiting-tool-calls.query.js';

const WaitingToolCallDto = z.object({
  callId: z.string(),
  name: z.string().describe('The tool as the model saw it (`<appId>__<tool>`)'),
  arguments: z.string().describe('The arguments the call would be made with (JSON text)'),
  since: z.string().describe('When it started waiting (ISO 8601)'),
  expiresAt: z.string().describe('When it is denied as expired if nobody decides'),
});

@Controller('api/v1/core/llm/:agentId/conversation/:conversationId/tool-calls')
export class ListWaitingToolCallsController {
  constructor(private readonly queries: QueryBus) {}

  @ApiRoute({
    tag: 'Conversations',
    summary: 'The tool calls waiting for approval (extension)',
    description:
      "The calls of App tools set to `ask` that wait for the conversation owner's decision (`POST …/tool-calls/{callId}`), " +
      'oldest first: what the streamed `tool_approval_required` events asked, for a client that was not listening ' +
      '(a reloaded page). Lists the calls waiting on the api process that answers.',
    response: {
      status: 200,
      schema: z.object({ data: z.array(WaitingToolCallDto) }),
      description: 'Waiting calls',
    },
    errors: [403, { status: 404, description: "`conversation_not_found` (unknown or another user's)" }],
  })
  @Get()
  list(
    @Param('agentId') agentId: string,
    @Param('conversationId') conversationId: string,
    @CurrentCaller() caller: Caller,
  ) {
    return this.queries.execute(
      new ListWaitingToolCalls(agentId, conversationId, caller.userId, principalOf(caller)),
    );
  }
}
