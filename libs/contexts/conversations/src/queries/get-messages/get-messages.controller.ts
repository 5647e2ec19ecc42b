// GET /llm/{agentId}/conversation/{conversationId}/messages (spec: get a conversation's messages).
import { Controller, Get, Param, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { z } from 'zod';
import { ApiRoute, ZodQuery } from '#http';
import { CurrentCaller, principalOf, type Caller } from '#access';
import { MessagesDto, MessagesQuery } from '../../conversation.schemas.js';
import { GetMessages } from './get-messages.query.js';

@Controller('api/v1/core/llm/:agentId/conversation/:conversationId/messages')
export class GetMessagesController {
  constructor(private readonly queries: QueryBus) {}

  @ApiRoute({
    tag: 'Conversations',
    summary: "A conversation's messages",
    description:
      "Oldest first, with citations and attachments. `compaction` says where the model's view starts; the raw history " +
      'is always listed whole. A deleted message is absent.',
    query: MessagesQuery,
    response: { status: 200, schema: MessagesDto, description: 'A page of messages' },
    errors: [
      400,
      403,
      { status: 404, description: "`conversation_not_found`: unknown, or not the caller's" },
    ],
  })
  @Get()
  list(
    @Param('agentId') agentId: string,
    @Param('conversationId') conversationId: string,
    @Query(new ZodQuery(MessagesQuery)) query: z.output<typeof MessagesQuery>,
    @CurrentCaller() caller: Caller,
  ) {
    return this.queries.execute(new GetMessages(agentId, conversationId, query, principalOf(caller)));
  }
}
