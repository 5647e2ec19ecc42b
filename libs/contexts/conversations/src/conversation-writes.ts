// Read-your-writes for a turn's writes. A turn ends once its messages are durable in the log, without waiting for the
// conversation read models to apply them; the reads of that conversation (its record, history and messages, and its
// user's listings) wait instead, bounded by READ_YOUR_WRITES_TIMEOUT_MS, until the read models reach the last
// position this process appended for it, then serve what is there. The map holds a position per conversation only
// until it is reached: it stays as small as the turns still projecting.
import { Injectable } from '@nestjs/common';
import { ReadYourWritesBus } from '#eventsourcing';
import { CONVERSATIONS_READ_MODEL, MESSAGES_READ_MODEL } from './conversations.read-model.js';

/** What a conversation's reads need to have applied a turn's writes. */
const CONVERSATION_READ_MODELS = [CONVERSATIONS_READ_MODEL, MESSAGES_READ_MODEL];

interface Pending {
  readonly userId: string;
  readonly position: number;
}

@Injectable()
export class ConversationWrites {
  private readonly pending = new Map<string, Pending>();

  constructor(private readonly writes: ReadYourWritesBus) {}

  /**
   * A turn appended to the conversation up to `position`: its next reads wait for it. The position is forgotten once
   * the read models reach it (or the wait times out), read or not: a conversation never read again leaves nothing.
   */
  appended(conversationId: string, userId: string, position: number): void {
    if (position <= 0) return;
    const known = this.pending.get(conversationId);
    if (known && known.position >= position) return;
    this.pending.set(conversationId, { userId, position });
    void this.writes
      .settle(position, CONVERSATION_READ_MODELS)
      .then(() => this.forget(conversationId, position))
      .catch(() => this.forget(conversationId, position));
  }

  /** Resolves once the conversation's read models show what this process appended to it (or the wait timed out). */
  async settled(conversationId: string): Promise<void> {
    const known = this.pending.get(conversationId);
    if (!known) return;
    await this.writes.settle(known.position, CONVERSATION_READ_MODELS);
    this.forget(conversationId, known.position);
  }

  /** The same for every conversation of the user: a listing shows each as it was last written. */
  async settledFor(userId: string): Promise<void> {
    let position = 0;
    for (const known of this.pending.values())
      if (known.userId === userId) position = Math.max(position, known.position);
    if (position === 0) return;
    await this.writes.settle(position, CONVERSATION_READ_MODELS);
    for (const [conversationId, known] of this.pending)
      if (known.userId === userId) this.forget(conversationId, position);
  }

  /** Kept when a later write came in while waiting: its own wait clears it. */
  private forget(conversationId: string, reached: number): void {
    const known = this.pending.get(conversationId);
    if (known && known.position <= reached) this.pending.delete(conversationId);
  }
}
