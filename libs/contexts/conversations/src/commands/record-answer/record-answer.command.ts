// A turn's answer, complete or incomplete (an interrupted turn is kept, marked so), with its provenance. Sent by the
// turn itself (runtime/places/stored-place.ts) with the turn's context.
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { AskedAtRoute } from '#access';
import type { CommandContext, WriteResult } from '#eventsourcing';
import type { NewAnswer } from '../../conversation-records.js';
import { ConversationRepository } from '../../conversation.repository.js';

@AskedAtRoute(
  'no route sends it: only the turn itself, whose Agent and conversation the gate asked about (UseAgent, UseConversation)',
)
export class RecordAnswer extends Command<WriteResult> {
  constructor(
    readonly conversationId: string,
    readonly answer: NewAnswer,
    readonly context: CommandContext,
  ) {
    super();
  }
}

@CommandHandler(RecordAnswer)
export class RecordAnswerHandler implements ICommandHandler<RecordAnswer> {
  constructor(private readonly repository: ConversationRepository) {}

  async execute({ conversationId, answer, context }: RecordAnswer): Promise<WriteResult> {
    return {
      id: answer.messageId,
      position: await this.repository.recordAnswer(conversationId, answer, context),
    };
  }
}
