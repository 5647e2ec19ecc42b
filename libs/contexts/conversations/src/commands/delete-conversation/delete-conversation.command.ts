// Deleting a conversation for good: ConversationDeleted in the log (who and when stay), its data keys destroyed (its
// texts are unreadable everywhere: read models, rebuilds, backups of the log), its read-model documents purged; an
// incognito one is forgotten. Also sent by the process that cascades an Agent's deletion (DeleteAgentConversation).
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { CommandContext, WriteResult } from '#eventsourcing';
import { AskedAtRoute, Requires, type PlatformPrincipal, type Principal } from '#access';
import { ConversationResolver } from '../../conversation-resolver.js';
import { ConversationDirectory } from '../../conversation-directory.js';
import { ConversationRepository } from '../../conversation.repository.js';

@Requires(ConversationResolver, (conversations, { agentId, conversationId }: DeleteConversation) =>
  conversations.owned(agentId, conversationId),
)
export class DeleteConversation extends Command<WriteResult> {
  constructor(
    readonly agentId: string,
    readonly conversationId: string,
    readonly context: CommandContext,
    readonly principal: Principal,
  ) {
    super();
  }
}

@CommandHandler(DeleteConversation)
export class DeleteConversationHandler implements ICommandHandler<DeleteConversation> {
  constructor(private readonly directory: ConversationDirectory) {}

  async execute({ agentId, conversationId, context }: DeleteConversation): Promise<WriteResult> {
    const { record, userId, writer } = await this.directory.owned(agentId, conversationId);
    return { id: record.id, position: await writer.delete(record.id, userId, 'requested', context) };
  }
}

/**
 * The platform deletes a conversation because its Agent was deleted: only the platform sends it (its principal is the
 * deleting process). A conversation already deleted appends nothing.
 */
@AskedAtRoute(
  "no route sends it: only the process cascading an Agent's deletion, whose principal is the platform (typed so)",
)
export class DeleteAgentConversation extends Command<WriteResult> {
  constructor(
    readonly conversationId: string,
    readonly context: CommandContext,
    readonly principal: PlatformPrincipal,
  ) {
    super();
  }
}

@CommandHandler(DeleteAgentConversation)
export class DeleteAgentConversationHandler implements ICommandHandler<DeleteAgentConversation> {
  constructor(private readonly repository: ConversationRepository) {}

  async execute({ conversationId, context }: DeleteAgentConversation): Promise<WriteResult> {
    return {
      id: conversationId,
      position: await this.repository.delete(conversationId, null, 'agent_deleted', context),
    };
  }
}
