// A conversation a principal may continue, for the turn (an entry point that is no message): sent on the query bus so
// that the gate asks about it as for every route of a conversation (404 `conversation_not_found` when it is not the
// principal's with this Agent). It answers nothing: the turn reads the conversation where it continues it.
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { Requires, type PrincipalOrCaller } from '#access';
import { ConversationResolver } from '../../conversation-resolver.js';

@Requires(ConversationResolver, (conversations, { agentId, conversationId }: UseConversation) =>
  conversations.owned(agentId, conversationId),
)
export class UseConversation extends Query<void> {
  constructor(
    readonly agentId: string,
    readonly conversationId: string,
    readonly principal: PrincipalOrCaller,
  ) {
    super();
  }
}

@QueryHandler(UseConversation)
export class UseConversationHandler implements IQueryHandler<UseConversation, void> {
  execute(): Promise<void> {
    return Promise.resolve();
  }
}
