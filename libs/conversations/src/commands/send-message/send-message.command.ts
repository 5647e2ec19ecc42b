// Sending a message to an Agent: one conversation turn (see ConversationTurns), as a command on the bus.
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { Caller } from '#identity';
import type { SendMessageBody } from '../../conversation.schemas.js';
import { ConversationTurns } from '../../runtime/conversation-turn.js';
import type { TurnAnswer } from '../../runtime/turn-answer.js';
import type { TurnEmitter } from '../../runtime/turn-events.js';

export class SendMessage extends Command<TurnAnswer> {
  constructor(
    readonly agentId: string,
    readonly body: SendMessageBody,
    readonly caller: Caller,
    readonly signal: AbortSignal,
    /** Receives the turn's progress (streamed turns); a plain turn ignores it. */
    readonly emit: TurnEmitter,
    readonly idempotencyKey?: string,
  ) {
    super();
  }
}

@CommandHandler(SendMessage)
export class SendMessageHandler implements ICommandHandler<SendMessage> {
  constructor(private readonly turns: ConversationTurns) {}

  execute({ agentId, body, caller, signal, emit, idempotencyKey }: SendMessage): Promise<TurnAnswer> {
    const message =
      typeof body.message === 'string' ? { content: body.message, attachments: [] } : body.message;
    return this.turns.run(
      {
        agentId,
        caller,
        conversationId: body.conversationId,
        content: message.content,
        attachments: message.attachments ?? [],
        visibility: body.visibility,
        model: body.model,
        stream: body.stream,
        idempotencyKey,
        signal,
      },
      emit,
    );
  }
}
