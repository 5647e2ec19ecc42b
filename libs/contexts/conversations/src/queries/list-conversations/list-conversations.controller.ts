// GET /llm/{agentId}/conversation (spec: list conversations).
import { Controller, Get, Param, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { z } from 'zod';
import { ApiRoute, listOf, ZodQuery } from '#http';
import { CurrentCaller, principalOf, type Caller } from '#access';
import { ConversationDto, ConversationListQuery } from '../../conversation.schemas.js';
import { ListConversations } from './list-conversations.query.js';

@Controller('api/v1/core/llm/:agentId/conversation')
export class ListConversationsController {
  constructor(private readonly queries: QueryBus) {}

  @ApiRoute({
    tag: 'Conversations',
    summary: "List the caller's conversations with the Agent",
    description:
      'Oldest first, without message bodies; with `q`, those whose title or messages contain it, newest first. Incognito conversations are never listed.',
    query: ConversationListQuery,
    response: { status: 200, schema: listOf(ConversationDto), description: 'A page of conversations' },
    errors: [400, 403, 404],
  })
  @Get()
  list(
    @Param('agentId') agentId: string,
    @Query(new ZodQuery(ConversationListQuery)) query: z.output<typeof ConversationListQuery>,
    @CurrentCaller() caller: Caller,
  ) {
    return this.queries.execute(new ListConversations(agentId, query, principalOf(caller)));
  }
}
