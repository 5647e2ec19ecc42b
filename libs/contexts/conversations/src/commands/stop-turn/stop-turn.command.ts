// Stopping a conversation's running turn (the web app's Stop): only its owner may, and the model call is aborted
// (its usage stops there); the turn is recorded incomplete by the turn itself. No event of its own.
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { Requires, type Principal } from '#access';
import { ConversationResolver } from '../../conversation-resolver.js';
import { ConversationDirectory } from '../../conversation-directory.js';
import { RunningTurns } from '../../runtime/running-turns.js';

@Requires(ConversationResolver, (conversations, { agentId, conversationId }: StopTurn) =>
  conversations.owned(agentId, conversationId),
)
export class StopTurn extends Command<{ stopped: boolean }> {
  constructor(
    readonly agentId: string,
    readonly conversationId: string,
    readonly principal: Principal,
  ) {
    super();
  }
}

@CommandHandler(StopTurn)
export class StopTurnHandler implements ICommandHandler<StopTurn> {
  constructor(
    private readonly directory: ConversationDirectory,
    private readonly running: RunningTurns,
  ) {}

  async execute({ agentId, conversationId }: StopTurn): Promise<{ stopped: boolean }> {
    const owned = await this.directory.owned(agentId, conversationId);
    return { stopped: this.running.stop(owned.record.id) };
  }
}
