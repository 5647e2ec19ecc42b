// The tool calls of a conversation that wait for its owner's approval: what a chat reloaded mid-turn asks about again.
// Only the conversation's owner reaches it (anyone else: 404, as for an unknown conversation); it lists the calls
// waiting on this api process, where the decision reaches them.
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { Requires, type Principal } from '#access';
import { ConversationResolver } from '../../conversation-resolver.js';
import { ConversationDirectory } from '../../conversation-directory.js';
import { ToolApprovals, type WaitingToolCall } from '../../runtime/tool-approvals.js';

@Requires(ConversationResolver, (conversations, { agentId, conversationId }: ListWaitingToolCalls) =>
  conversations.owned(agentId, conversationId),
)
export class ListWaitingToolCalls extends Query<{ data: WaitingToolCall[] }> {
  constructor(
    readonly agentId: string,
    readonly conversationId: string,
    readonly userId: string,
    readonly principal: Principal,
  ) {
    super();
  }
}

@QueryHandler(ListWaitingToolCalls)
export class ListWaitingToolCallsHandler implements IQueryHandler<ListWaitingToolCalls> {
  constructor(
    private readonly directory: ConversationDirectory,
    private readonly approvals: ToolApprovals,
  ) {}

  async execute({ agentId, conversationId, userId }: ListWaitingToolCalls) {
    const owned = await this.directory.owned(agentId, conversationId);
    return { data: this.approvals.waitingFor({ agentId, conversationId: owned.record.id, userId }) };
  }
}
