// POST /llm/{agentId}/conversation/{conversationId}/elicitations/{elicitationId} (our design): answer a question a
// tool's server asks the person whose turn it is while the call runs (MCP elicitation).
import { Body, Controller, HttpCode, Param, Post, UseInterceptors } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { z } from 'zod';
import { ApiRoute, ZodBody } from '#http';
import { IdempotencyInterceptor } from '#identity';
import { CurrentCaller, principalOf, type Caller } from '#access';
import { AnswerElicitation } from './answer-elicitation.command.js';

/** The form's values: MCP's primitive subset (strings, numbers, booleans, lists of chosen strings). */
const FormValue = z.union([
  z.string().max(10_000),
  z.number(),
  z.boolean(),
  z.array(z.string().max(1_000)).max(100),
]);

export const AnswerElicitationBody = z
  .object({
    action: z
      .enum(['accept', 'decline', 'cancel'])
      .describe(
        '`accept` with `content`; `decline`: the person says no; `cancel`: they dismissed the question',
      ),
    content: z
      .record(z.string().max(200), FormValue)
      .refine((content) => Object.keys(content).length <= 100, 'at most 100 fields')
      .optional()
      .describe('The answers by field of the requested schema (accept only)'),
  })
  .strict()
  .refine((body) => body.action === 'accept' || body.content === undefined, {
    message: 'content is sent with accept only',
    path: ['content'],
  });

@UseInterceptors(IdempotencyInterceptor)
@Controller('api/v1/core/llm/:agentId/conversation/:conversationId/elicitations')
export class AnswerElicitationController {
  constructor(private readonly bus: CommandBus) {}

  @ApiRoute({
    tag: 'Conversations',
    summary: "Answer a tool server's question during a call (extension)",
    description:
      "While an App tool call runs, its MCP server may ask the person whose turn it is for input: a streamed turn's " +
      '`tool_elicitation_required` event names the `elicitationId`, the `message` and the `requestedSchema` (a flat ' +
      'object of strings, numbers, booleans and enums). `accept` sends `content`, checked against that schema; ' +
      '`decline` and `cancel` send none. Unanswered after TOOL_APPROVAL_TIMEOUT_SECONDS it is cancelled; in a turn ' +
      "nobody follows (not streamed) it is declined at once. Only the conversation's owner may answer; the question " +
      'waits on the api process that runs its turn.',
    body: AnswerElicitationBody,
    idempotent: true,
    response: {
      status: 200,
      schema: z.object({ elicitationId: z.string(), action: z.enum(['accept', 'decline', 'cancel']) }),
      description: 'The answer was passed to the server',
    },
    errors: [
      {
        status: 400,
        description:
          'Invalid request; `invalid_elicitation_content`: the content does not fit the requested schema',
      },
      403,
      {
        status: 404,
        description:
          "`conversation_not_found` (unknown or another user's), `elicitation_not_found` (no such question waits: answered, expired or never asked)",
      },
    ],
  })
  @Post(':elicitationId')
  @HttpCode(200)
  answer(
    @Param('agentId') agentId: string,
    @Param('conversationId') conversationId: string,
    @Param('elicitationId') elicitationId: string,
    @Body(new ZodBody(AnswerElicitationBody)) body: z.output<typeof AnswerElicitationBody>,
    @CurrentCaller() caller: Caller,
  ) {
    return this.bus.execute(
      new AnswerElicitation(
        agentId,
        conversationId,
        elicitationId,
        { action: body.action, ...(body.content ? { content: body.content } : {}) },
        caller.userId,
        principalOf(caller),
      ),
    );
  }
}
