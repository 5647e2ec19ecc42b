// Deleting a conversation for good: ConversationDeleted in the log (who and when stay), its data keys destroyed (its
// texts are unreadable everywhere: read models, rebuilds, backups of the log), its read-model documents purged; an
// incognito one is forgotten. Also sent by the process that cascades an Agent's deletion (DeleteAgentConversation).
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { CommandContext, WriteResult } from '#eventsourcing';
import type { PlatformPrincipal, Principal } from '#access';
import { ConversationDirectory } from '../../conversation-directory.js';
import { ConversationRepository } from '../../conversation.repository.js';

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

  async execute({ agentId, conversationId, context, principal }: DeleteConversation): Promise<WriteResult> {
    const { record, userId, writer } = await this.directory.owned(agentId, conversationId, principal);
    return { id: record.id, position: await writer.delete(record.id, userId, 'requested', context) };
  }
}

/**
 * The platform deletes a conversation because its Agent was deleted: only the platform sends it (its principal is the
 * deleting process). A conversation already deleted appends nothing.
 */
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
