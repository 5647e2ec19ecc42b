// Deleting one message from a conversation (spec: "a single message can be deleted from an Agent's conversation
// history"): its key is destroyed, so its text is gone everywhere, and later turns never see it; a checkpoint whose
// summary read it is discarded with it (the next turn compacts anew).
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { commandContext, type Caller } from '#identity';
import { ConversationDirectory } from '../../conversation-directory.js';
import { MessageNotFoundError } from '../../conversation.decider.js';

export class DeleteMessage extends Command<void> {
  constructor(
    readonly agentId: string,
    readonly conversationId: string,
    readonly messageId: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@CommandHandler(DeleteMessage)
export class DeleteMessageHandler implements ICommandHandler<DeleteMessage> {
  constructor(private readonly directory: ConversationDirectory) {}

  async execute({ agentId, conversationId, messageId, caller }: DeleteMessage): Promise<void> {
    const owned = await this.directory.owned(agentId, conversationId, caller);
    if (owned.kind === 'incognito') {
      if (!this.directory.incognito.deleteMessage(owned.live, messageId))
        throw new MessageNotFoundError(messageId);
      return;
    }
    const { stored } = this.directory;
    await stored.settleErasure(
      await stored.deleteMessage(owned.record.id, caller.userId, messageId, commandContext(caller)),
    );
  }
}
