// PATCH /llm/{agentId}/conversation/{conversationId} (extension): title, archived, pinned, visibility normal ↔ private.
import { Body, Controller, Param, Patch } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { z } from 'zod';
import { ReadYourWritesBus } from '#eventsourcing';
import { ApiRoute, ZodBody } from '#http';
import { commandContext, CurrentCaller, principalOf, type Caller } from '#access';
import { ChangeConversationBody, ConversationDto } from '../../conversation.schemas.js';
import { CONVERSATIONS_READ_MODEL, MESSAGES_READ_MODEL } from '../../conversations.read-model.js';
import { GetConversation } from '../../queries/get-conversation/get-conversation.query.js';
import { ChangeConversation } from './change-conversation.command.js';

@Controller('api/v1/core/llm/:agentId/conversation/:conversationId')
export class ChangeConversationController {
  constructor(
    private readonly writes: ReadYourWritesBus,
    private readonly queries: QueryBus,
  ) {}

  @ApiRoute({
    tag: 'Conversations',
    summary: 'Rename, archive, pin or change the visibility of a conversation (extension)',
    description:
      'An archived conversation leaves the default listing and stays readable; a pinned one is listed with `pinned: true`. Private conversations are never returned to Apps.',
    body: ChangeConversationBody,
    response: { status: 200, schema: ConversationDto, description: 'The conversation' },
    errors: [
      {
        status: 400,
        description:
          'Invalid request; `incognito_conversation` for archiving, pinning or changing an incognito one',
      },
      403,
      404,
    ],
  })
  @Patch()
  async change(
    @Param('agentId') agentId: string,
    @Param('conversationId') conversationId: string,
    @Body(new ZodBody(ChangeConversationBody)) body: z.output<typeof ChangeConversationBody>,
    @CurrentCaller() caller: Caller,
  ) {
    const principal = principalOf(caller);
    await this.writes.send(
      new ChangeConversation(agentId, conversationId, body, commandContext(caller), principal),
      [CONVERSATIONS_READ_MODEL, MESSAGES_READ_MODEL],
    );
    return this.queries.execute(new GetConversation(agentId, conversationId, principal));
  }
}
