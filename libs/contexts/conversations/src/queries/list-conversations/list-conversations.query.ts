// The caller's stored conversations with an Agent (incognito ones are never listed), oldest first, without bodies; or,
// with `q`, those whose title or messages contain a text (a bounded search: conversation.reader.ts).
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { z } from 'zod';
import { Requires, type Principal } from '#access';
import { ConversationResolver } from '../../conversation-resolver.js';
import { ConversationDirectory, toConversationDto } from '../../conversation-directory.js';
import type { ConversationDto, ConversationListQuery } from '../../conversation.schemas.js';

@Requires(ConversationResolver, (conversations, { agentId }: ListConversations) =>
  conversations.agent(agentId),
)
export class ListConversations extends Query<{
  data: z.output<typeof ConversationDto>[];
  nextCursor: string | null;
}> {
  constructor(
    readonly agentId: string,
    readonly query: z.output<typeof ConversationListQuery>,
    readonly principal: Principal,
  ) {
    super();
  }
}

@QueryHandler(ListConversations)
export class ListConversationsHandler implements IQueryHandler<ListConversations> {
  constructor(private readonly directory: ConversationDirectory) {}

  async execute({ agentId, query, principal }: ListConversations) {
    if (query.q !== undefined) {
      const found = await this.directory.search(agentId, principal, query.archived, query.q);
      return { data: found.map(toConversationDto), nextCursor: null };
    }
    const page = await this.directory.list(agentId, principal, query.archived, {
      limit: query.limit,
      cursor: query.cursor ?? null,
    });
    return { data: page.data.map(toConversationDto), nextCursor: page.nextCursor };
  }
}
