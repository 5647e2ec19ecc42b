// Renaming, archiving and switching a conversation between normal and private (an incognito one can only be renamed:
// it has no stored state to archive and cannot become stored).
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { z } from 'zod';
import { commandContext, type Caller } from '#identity';
import { ValidationError } from '#kernel';
import { ConversationDirectory, toConversationDto } from '../../conversation-directory.js';
import { ConversationNotFoundError } from '../../conversation.decider.js';
import type { ChangeConversationBody, ConversationDto } from '../../conversation.schemas.js';

export class ChangeConversation extends Command<z.output<typeof ConversationDto>> {
  constructor(
    readonly agentId: string,
    readonly conversationId: string,
    readonly change: z.output<typeof ChangeConversationBody>,
    readonly caller: Caller,
  ) {
    super();
  }
}

@CommandHandler(ChangeConversation)
export class ChangeConversationHandler implements ICommandHandler<ChangeConversation> {
  constructor(private readonly directory: ConversationDirectory) {}

  async execute({ agentId, conversationId, change, caller }: ChangeConversation) {
    const owned = await this.directory.owned(agentId, conversationId, caller);
    if (owned.kind === 'incognito') {
      if (change.archived !== undefined || change.visibility !== undefined)
        throw new ValidationError(
          'incognito_conversation',
          'an incognito conversation is never stored: it can be renamed, not archived or made normal or private',
          change.archived !== undefined ? 'archived' : 'visibility',
        );
      this.directory.incognito.change(owned.live, change);
      return toConversationDto(owned.live.record);
    }
    const { stored } = this.directory;
    const position = await stored.change(owned.record.id, caller.userId, change, commandContext(caller));
    await stored.settle(position);
    const record = await stored.find(owned.record.id, caller.userId, owned.agent.id);
    if (!record) throw new ConversationNotFoundError(conversationId);
    return toConversationDto(record);
  }
}
