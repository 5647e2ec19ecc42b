// A conversation kept in the log: its messages are events (sealed), read back through StoredConversations.
import type { CommandContext } from '#eventsourcing';
import type { Caller } from '#identity';
import type {
  ConversationRecord,
  NewAnswer,
  NewCheckpoint,
  PlainMessage,
  Visibility,
} from '../../conversation-records.js';
import type { StoredConversations } from '../../stored-conversations.js';
import { summarised, titleOf, type ConversationPlace, type TurnQuestion } from './conversation-place.js';

export class StoredPlace implements ConversationPlace {
  readonly created: boolean;
  readonly visibility: Visibility;
  readonly keepsTraces = true;

  constructor(
    private readonly stored: StoredConversations,
    private readonly conversationId: string,
    private readonly agentId: string,
    private readonly caller: Caller,
    /** The conversation found, or null when this turn starts it. */
    private readonly found: ConversationRecord | null,
    /** The visibility asked for when this turn starts it. */
    private readonly requested: 'private' | 'normal',
  ) {
    this.created = found === null;
    this.visibility = found?.visibility ?? requested;
  }

  record(): ConversationRecord | null {
    return this.found;
  }

  message(messageId: string): Promise<PlainMessage | null> {
    return this.stored.message(this.conversationId, messageId);
  }

  async history(): Promise<PlainMessage[]> {
    if (!this.found) return [];
    const checkpoint = this.found.checkpoint;
    return this.stored.history(
      this.conversationId,
      checkpoint?.summary != null ? checkpoint.throughMessageId : null,
    );
  }

  checkpoint() {
    return summarised(this.found?.checkpoint);
  }

  async postUserMessage(question: TurnQuestion, context: CommandContext): Promise<void> {
    await this.stored.postUserMessage(
      {
        conversationId: this.conversationId,
        agentId: this.agentId,
        userId: this.caller.userId,
        start: this.found
          ? null
          : { apiKeyId: this.caller.apiKey.id, visibility: this.requested, title: titleOf(question.content) },
        messageId: question.messageId,
        content: question.content,
        attachments: question.attachments,
      },
      context,
    );
  }

  saveCheckpoint(checkpoint: NewCheckpoint, context: CommandContext): Promise<void> {
    return this.stored.compact(this.conversationId, checkpoint, context);
  }

  recordAnswer(answer: NewAnswer, _at: Date, context: CommandContext): Promise<void> {
    return this.stored.recordAnswer(this.conversationId, answer, context);
  }
}
