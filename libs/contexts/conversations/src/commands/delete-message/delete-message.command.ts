// Deleting one message from a conversation (spec: "a single message can be deleted from an Agent's conversation
// history"): its key is destroyed, so its text is gone everywhere, and later turns never see it; a checkpoint whose
// summary read it is discarded with it (the next turn compacts anew).
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { CommandContext, WriteResult } from '#eventsourcing';
import { Requires, type Principal } from '#access';
import { ConversationResolver } from '../../conversation-resolver.js';
import { ConversationDirectory } from '../../conversation-directory.js';

@Requires(ConversationResolver, (conversations, { agentId, conversationId }: DeleteMessage) =>
  conversations.owned(agentId, conversationId),
)
export class DeleteMessage extends Command<WriteResult> {
  constructor(
    readonly agentId: string,
    readonly conversationId: string,
    readonly messageId: string,
    readonly context: CommandContext,
    readonly principal: Principal,
  ) {
    super();
  }
}

@CommandHandler(DeleteMessage)
export class DeleteMessageHandler implements ICommandHandler<DeleteMessage> {
  constructor(private readonly directory: ConversationDirectory) {}

  async execute({ agentId, conversationId, messageId, context }: DeleteMessage) {
    const { record, userId, writer } = await this.directory.owned(agentId, conversationId);
    return { id: messageId, position: await writer.deleteMessage(record.id, userId, messageId, context) };
  }
}
