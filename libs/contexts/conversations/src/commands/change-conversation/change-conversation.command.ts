// Renaming, archiving and switching a conversation between normal and private (an incognito one can only be renamed:
// it has no stored state to archive and cannot become stored; its writer refuses the rest).
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { CommandContext, WriteResult } from '#eventsourcing';
import { Requires, type Principal } from '#access';
import { ConversationResolver } from '../../conversation-resolver.js';
import { ConversationDirectory } from '../../conversation-directory.js';
import type { ConversationChange } from '../../owned-conversation.js';

@Requires(ConversationResolver, (conversations, { agentId, conversationId }: ChangeConversation) =>
  conversations.owned(agentId, conversationId),
)
export class ChangeConversation extends Command<WriteResult> {
  constructor(
    readonly agentId: string,
    readonly conversationId: string,
    readonly change: ConversationChange,
    readonly context: CommandContext,
    readonly principal: Principal,
  ) {
    super();
  }
}

@CommandHandler(ChangeConversation)
export class ChangeConversationHandler implements ICommandHandler<ChangeConversation> {
  constructor(private readonly directory: ConversationDirectory) {}

  async execute({ agentId, conversationId, change, context }: ChangeConversation) {
    const { record, userId, writer } = await this.directory.owned(agentId, conversationId);
    return { id: record.id, position: await writer.change(record.id, userId, change, context) };
  }
}
