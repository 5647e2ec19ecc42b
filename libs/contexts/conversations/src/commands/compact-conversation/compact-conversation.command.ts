// A compaction checkpoint: the summary of the conversation's oldest part, which the model's view continues from.
// Sent by the turn itself (runtime/turn-compaction.ts, through the stored place) with the turn's context.
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { AskedAtRoute } from '#access';
import type { CommandContext, WriteResult } from '#eventsourcing';
import type { NewCheckpoint } from '../../conversation-records.js';
import { ConversationRepository } from '../../conversation.repository.js';

@AskedAtRoute(
  'no route sends it: only the turn itself, whose Agent and conversation the gate asked about (UseAgent, UseConversation)',
)
export class CompactConversation extends Command<WriteResult> {
  constructor(
    readonly conversationId: string,
    readonly checkpoint: NewCheckpoint,
    readonly context: CommandContext,
  ) {
    super();
  }
}

@CommandHandler(CompactConversation)
export class CompactConversationHandler implements ICommandHandler<CompactConversation> {
  constructor(private readonly repository: ConversationRepository) {}

  async execute({ conversationId, checkpoint, context }: CompactConversation): Promise<WriteResult> {
    return {
      id: checkpoint.checkpointId,
      position: await this.repository.compact(conversationId, checkpoint, context),
    };
  }
}
