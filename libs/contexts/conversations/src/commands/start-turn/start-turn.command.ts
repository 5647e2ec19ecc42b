// A turn's user message, posted first (so a turn cut short is never lost, nor shown as answered); the first turn of a
// conversation starts it. Sent by the turn itself (runtime/places/stored-place.ts) with the turn's context: the
// turn has already resolved the caller's access, so this command carries no principal.
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { AskedAtRoute } from '#access';
import type { CommandContext, WriteResult } from '#eventsourcing';
import { ConversationRepository, type StoredTurn } from '../../conversation.repository.js';

@AskedAtRoute(
  'no route sends it: only the turn itself, whose Agent and conversation the gate asked about (UseAgent, UseConversation)',
)
export class StartTurn extends Command<WriteResult> {
  constructor(
    readonly turn: StoredTurn,
    readonly context: CommandContext,
  ) {
    super();
  }
}

@CommandHandler(StartTurn)
export class StartTurnHandler implements ICommandHandler<StartTurn> {
  constructor(private readonly repository: ConversationRepository) {}

  async execute({ turn, context }: StartTurn): Promise<WriteResult> {
    return { id: turn.conversationId, position: await this.repository.startTurn(turn, context) };
  }
}
