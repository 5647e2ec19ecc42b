// An incognito conversation: kept in this process's memory only, never in the log.
import type { NewAnswer, NewCheckpoint, PlainMessage } from '../../conversation-records.js';
import type { IncognitoConversation, IncognitoConversations } from '../../incognito-conversations.js';
import { summarised, type ConversationPlace, type TurnQuestion } from './conversation-place.js';

export class IncognitoPlace implements ConversationPlace {
  readonly created: boolean;
  readonly visibility = 'incognito' as const;
  /** Nothing of an incognito conversation outlives it: no memories, no sandbox. */
  readonly keepsTraces = false;

  constructor(
    private readonly incognito: IncognitoConversations,
    private readonly live: IncognitoConversation,
  ) {
    this.created = live.messages.length === 0;
  }

  record() {
    return this.live.record;
  }

  async message(messageId: string): Promise<PlainMessage | null> {
    return this.live.messages.find((message) => message.id === messageId) ?? null;
  }

  async history(): Promise<PlainMessage[]> {
    return [...this.live.messages];
  }

  checkpoint() {
    return summarised(this.live.record.checkpoint);
  }

  async postUserMessage(question: TurnQuestion): Promise<void> {
    this.incognito.postUserMessage(
      this.live,
      question.messageId,
      question.content,
      question.attachments,
      question.at,
    );
  }

  async saveCheckpoint(checkpoint: NewCheckpoint): Promise<void> {
    this.incognito.compact(this.live, checkpoint);
  }

  async recordAnswer(answer: NewAnswer, at: Date): Promise<void> {
    this.incognito.recordAnswer(this.live, answer, at);
  }
}
