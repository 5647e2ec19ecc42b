// POST /llm/{agentId}/conversation/{conversationId}/app-tools/{name} (our design): an MCP App view's call of its own
// server's tool, made by the chat that hosts the view, under the approval rules of the model's calls.
import { Body, Controller, HttpCode, Param, Post, UseInterceptors } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { z } from 'zod';
import { ApiRoute, ZodBody } from '#http';
import { IdempotencyInterceptor } from '#identity';
import { commandContext, CurrentCaller, principalOf, type Caller } from '#access';
import { CallViewTool } from './call-view-tool.command.js';

export const CallViewToolBody = z
  .object({
    messageId: z.string().min(1).max(100).describe('The answer whose MCP App view makes the call'),
    arguments: z
      .record(z.string(), z.unknown())
      .default({})
      .describe("The tool's arguments (its input schema)"),
    decision: z
      .enum(['approve', 'deny'])
      .optional()
      .describe("The person's decision, required for a tool set to `ask` (the chat asks before it sends)"),
  })
  .strict();

@UseInterceptors(IdempotencyInterceptor)
@Controller('api/v1/core/llm/:agentId/conversation/:conversationId/app-tools')
export class CallViewToolController {
  constructor(private readonly bus: CommandBus) {}

  @ApiRoute({
    tag: 'Conversations',
    summary: 'Call a tool for an MCP App view (extension)',
    description:
      "An MCP App view shown under an answer calls its own App's tools through the chat. The tool is `name` as the " +
      'model knows it (`<appId>__<tool>`), of the App whose view the answer shows, offered to the Agent (not ' +
      'switched off, not `never`, not for the model only) and called with arguments that match its input schema. ' +
      "A tool set to `ask` needs `decision`. The call is recorded like the model's (requested, approved or " +
      "denied, completed or failed; arguments and result sealed with the answer's key). The answer is the MCP " +
      'result the view reads; a tool error is `ok: false` with `isError`.',
    body: CallViewToolBody,
    idempotent: true,
    response: {
      status: 200,
      schema: z.object({
        callId: z.string(),
        ok: z.boolean(),
        result: z.unknown().describe('The MCP result: `content`, `structuredContent`, `isError`'),
      }),
      description: 'The call, made or refused by the person',
    },
    errors: [
      400,
      {
        status: 403,
        description:
          '`agent_access_denied`, `app_tool_of_another_app`, `app_tool_not_for_views`, `app_tool_switched_off`',
      },
      {
        status: 404,
        description: '`conversation_not_found`, `message_not_found`, `app_tool_not_found`',
      },
      { status: 409, description: '`tool_approval_required`: the tool is set to `ask` and no decision came' },
    ],
  })
  @Post(':name')
  @HttpCode(200)
  call(
    @Param('agentId') agentId: string,
    @Param('conversationId') conversationId: string,
    @Param('name') name: string,
    @Body(new ZodBody(CallViewToolBody)) body: z.output<typeof CallViewToolBody>,
    @CurrentCaller() caller: Caller,
  ) {
    return this.bus.execute(
      new CallViewTool(
        agentId,
        conversationId,
        name,
        body.messageId,
        body.arguments,
        body.decision,
        caller.userId,
        commandContext(caller),
        principalOf(caller),
      ),
    );
  }
}
