// PATCH /llm/{agentId}/conversation/{conversationId} (extension): title, archived, visibility normal ↔ private.
import { Body, Controller, Param, Patch } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { z } from 'zod';
import { ApiRoute, ZodBody } from '#http';
import { CurrentCaller, type Caller } from '#identity';
import { ChangeConversationBody, ConversationDto } from '../../conversation.schemas.js';
import { ChangeConversation } from './change-conversation.command.js';

@Controller('api/v1/core/llm/:agentId/conversation/:conversationId')
export class ChangeConversationController {
  constructor(private readonly bus: CommandBus) {}

  @ApiRoute({
    tag: 'Conversations',
    summary: 'Rename, archive or change the visibility of a conversation (extension)',
    description:
      'An archived conversation leaves the default listing and stays readable. Private conversations are never returned to Apps.',
    body: ChangeConversationBody,
    response: { status: 200, schema: ConversationDto, description: 'The conversation' },
    errors: [
      {
        status: 400,
        description: 'Invalid request; `incognito_conversation` for archiving or changing an incognito one',
      },
      403,
      404,
    ],
  })
  @Patch()
  change(
    @Param('agentId') agentId: string,
    @Param('conversationId') conversationId: string,
    @Body(new ZodBody(ChangeConversationBody)) body: z.output<typeof ChangeConversationBody>,
    @CurrentCaller() caller: Caller,
  ) {
    return this.bus.execute(new ChangeConversation(agentId, conversationId, body, caller));
  }
}
