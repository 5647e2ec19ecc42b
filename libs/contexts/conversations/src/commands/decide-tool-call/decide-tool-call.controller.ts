// POST /llm/{agentId}/conversation/{conversationId}/tool-calls/{callId} (our design): approve or deny a tool call
// that waits for the decision of the person whose turn it is.
import { Body, Controller, HttpCode, Param, Post, UseInterceptors } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { z } from 'zod';
import { ApiRoute, ZodBody } from '#http';
import { IdempotencyInterceptor } from '#identity';
import { CurrentCaller, principalOf, type Caller } from '#access';
import { DecideToolCall } from './decide-tool-call.command.js';

export const DecideToolCallBody = z
  .object({
    decision: z.enum(['approve', 'deny']).describe('`approve`: the call is made; `deny`: it is not'),
  })
  .strict();

@UseInterceptors(IdempotencyInterceptor)
@Controller('api/v1/core/llm/:agentId/conversation/:conversationId/tool-calls')
export class DecideToolCallController {
  constructor(private readonly bus: CommandBus) {}

  @ApiRoute({
    tag: 'Conversations',
    summary: 'Approve or deny a tool call waiting for approval (extension)',
    description:
      "A call of an App tool set to `ask` waits (the stream's `tool_approval_required` names its `callId`) until the " +
      'person whose turn it is decides, or TOOL_APPROVAL_TIMEOUT_SECONDS pass (then it is denied as expired). ' +
      'Approved, the call is made; denied, the model reads that it was refused. The decision is recorded as an ' +
      "event of the conversation. Only the conversation's owner may decide; the call waits on the api process " +
      'that runs its turn.',
    body: DecideToolCallBody,
    idempotent: true,
    response: {
      status: 200,
      schema: z.object({
        callId: z.string(),
        decision: z.enum(['approved', 'denied']),
        turn: z
          .object({
            status: z.enum(['awaiting_approval', 'answered', 'failed']),
            pendingToolCalls: z
              .array(z.object({ callId: z.string(), name: z.string(), arguments: z.string() }))
              .optional(),
            conversationId: z.string().optional(),
            message: z.unknown().optional(),
            error: z.unknown().optional(),
          })
          .optional()
          .describe(
            "A non-streamed turn's: what it came to after the decision (more calls waiting, its answer as the turn route gives it, or its error envelope's `error`)",
          ),
      }),
      description: 'The decision taken',
    },
    errors: [
      400,
      403,
      {
        status: 404,
        description:
          "`conversation_not_found` (unknown or another user's), `tool_call_not_found` (no such call waits: decided, expired or never asked)",
      },
    ],
  })
  @Post(':callId')
  @HttpCode(200)
  decide(
    @Param('agentId') agentId: string,
    @Param('conversationId') conversationId: string,
    @Param('callId') callId: string,
    @Body(new ZodBody(DecideToolCallBody)) body: z.output<typeof DecideToolCallBody>,
    @CurrentCaller() caller: Caller,
  ) {
    return this.bus.execute(
      new DecideToolCall(agentId, conversationId, callId, body.decision, caller.userId, principalOf(caller)),
    );
  }
}
