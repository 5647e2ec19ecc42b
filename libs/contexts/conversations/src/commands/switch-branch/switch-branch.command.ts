// Switching a conversation to another of its branches (an earlier answer or question kept when its user edited or
// regenerated): the next turn continues it, and the messages route lists it.
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { CommandContext, WriteResult } from '#eventsourcing';
import { Requires, type Principal } from '#access';
import { ConversationResolver } from '../../conversation-resolver.js';
import { ConversationDirectory } from '../../conversation-directory.js';

@Requires(ConversationResolver, (conversations, { agentId, conversationId }: SwitchBranch) =>
  conversations.owned(agentId, conversationId),
)
export class SwitchBranch extends Command<WriteResult> {
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

@CommandHandler(SwitchBranch)
export class SwitchBranchHandler implements ICommandHandler<SwitchBranch> {
  constructor(private readonly directory: ConversationDirectory) {}

  async execute({ agentId, conversationId, messageId, context }: SwitchBranch) {
    const { record, userId, writer } = await this.directory.owned(agentId, conversationId);
    return { id: conversationId, position: await writer.switchBranch(record.id, userId, messageId, context) };
  }
}
