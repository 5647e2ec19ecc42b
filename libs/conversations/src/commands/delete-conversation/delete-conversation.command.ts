// Deleting a conversation for good: ConversationDeleted in the log (who and when stay), its data keys destroyed (its
// texts are unreadable everywhere: read models, rebuilds, backups of the log), its read-model documents purged.
// Also sent by the process that cascades an Agent's deletion (no user then).
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { CommandContext } from '#eventsourcing';
import { commandContext, type Caller } from '#identity';
import { ConversationDirectory } from '../../conversation-directory.js';
import { StoredConversations } from '../../stored-conversations.js';

export class DeleteConversation extends Command<void> {
  constructor(
    readonly agentId: string,
    readonly conversationId: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@CommandHandler(DeleteConversation)
export class DeleteConversationHandler implements ICommandHandler<DeleteConversation> {
  constructor(private readonly directory: ConversationDirectory) {}

  async execute({ agentId, conversationId, caller }: DeleteConversation): Promise<void> {
    const owned = await this.directory.owned(agentId, conversationId, caller);
    if (owned.kind === 'incognito') return this.directory.incognito.delete(owned.record.id);
    const { stored } = this.directory;
    await stored.settleErasure(
      await stored.delete(owned.record.id, caller.userId, 'requested', commandContext(caller)),
    );
  }
}

/** The platform deletes a conversation because its Agent was deleted. */
export class DeleteAgentConversation extends Command<void> {
  constructor(
    readonly conversationId: string,
    readonly context: CommandContext,
  ) {
    super();
  }
}

@CommandHandler(DeleteAgentConversation)
export class DeleteAgentConversationHandler implements ICommandHandler<DeleteAgentConversation> {
  constructor(private readonly stored: StoredConversations) {}

  async execute({ conversationId, context }: DeleteAgentConversation): Promise<void> {
    await this.stored.delete(conversationId, null, 'agent_deleted', context);
  }
}
