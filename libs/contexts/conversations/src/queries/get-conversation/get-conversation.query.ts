// One of the principal's conversations with an Agent, stored or incognito, as the routes answer it. It has no route of
// its own: PATCH …/conversation/{conversationId} answers with it once its change is applied.
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { z } from 'zod';
import { Requires, type Principal } from '#access';
import { ConversationResolver } from '../../conversation-resolver.js';
import { ConversationDirectory, toConversationDto } from '../../conversation-directory.js';
import type { ConversationDto } from '../../conversation.schemas.js';

@Requires(ConversationResolver, (conversations, { agentId, conversationId }: GetConversation) =>
  conversations.owned(agentId, conversationId),
)
export class GetConversation extends Query<z.output<typeof ConversationDto>> {
  constructor(
    readonly agentId: string,
    readonly conversationId: string,
    readonly principal: Principal,
  ) {
    super();
  }
}

@QueryHandler(GetConversation)
export class GetConversationHandler implements IQueryHandler<GetConversation> {
  constructor(private readonly directory: ConversationDirectory) {}

  async execute({ agentId, conversationId }: GetConversation) {
    const { record } = await this.directory.owned(agentId, conversationId);
    return toConversationDto(record);
  }
}
