// The opened history of the conversations turns ran in lately, so a long conversation's next turn reads and opens
// only the messages posted since (issue 27 §2). Per conversation: the live messages a read served (opened, oldest
// first), the read model's order number (seq) of the last one, and the count of the conversation's key destructions
// (KeyStore.destructions) read before they were opened. A read serves them again only while that count is unchanged:
// every deletion of a message (or of the conversation) destroys its key, in whatever process, so a deleted or erased
// message, or any destroyed key, makes the next read open the history anew instead of serving it. A deletion in this
// process forgets its conversation at once. Bounded: least recently used conversations go first, beyond
// `maxConversations` or `maxChars` characters of opened text in all.
import { Injectable } from '@nestjs/common';
import type { PlainMessage } from './conversation-records.js';

/** At most this many conversations, and this many characters in all (~2 bytes each): 64 MiB. */
export const OPENED_HISTORY_MAX_CONVERSATIONS = 256;
export const OPENED_HISTORY_MAX_CHARS = 32 * 1024 * 1024;

/** A conversation's history as a read served it. */
export interface OpenedMessages {
  /** KeyStore.destructions of the conversation, read before any of these messages was opened. */
  readonly destructions: number;
  /** Whether the read started at the conversation's first message (else at `messages[0]`, a checkpoint's). */
  readonly fromStart: boolean;
  /** The seq of the last message the read model held then (-1: none). */
  readonly throughSeq: number;
  readonly messages: readonly PlainMessage[];
}

interface Entry {
  readonly opened: OpenedMessages;
  readonly chars: number;
}

const charsOf = (messages: readonly PlainMessage[]): number => {
  let chars = 0;
  for (const message of messages) {
    chars += message.content?.length ?? 0;
    for (const attachment of message.attachments)
      chars += attachment.name.length + (attachment.text?.length ?? 0);
    for (const citation of message.citations) chars += citation.summary?.text.length ?? 0;
  }
  return chars;
};

@Injectable()
export class OpenedHistory {
  private readonly entries = new Map<string, Entry>();
  private chars = 0;
  private maxConversations = OPENED_HISTORY_MAX_CONVERSATIONS;
  private maxChars = OPENED_HISTORY_MAX_CHARS;

  /** One with other bounds (tests). */
  static bounded(maxConversations: number, maxChars: number): OpenedHistory {
    const history = new OpenedHistory();
    history.maxConversations = maxConversations;
    history.maxChars = maxChars;
    return history;
  }

  /** What a read of the conversation served last (most recently used from now on), or null. */
  take(conversationId: string): OpenedMessages | null {
    const entry = this.entries.get(conversationId);
    if (!entry) return null;
    this.entries.delete(conversationId);
    this.entries.set(conversationId, entry);
    return entry.opened;
  }

  /** Keeps exactly what a read just served for the conversation, in place of what it kept before. */
  keep(conversationId: string, opened: OpenedMessages): void {
    const before = this.entries.get(conversationId);
    // A history continued from the one kept (the same messages first) is counted from where that one ended.
    const kept = before?.opened.messages ?? [];
    const continued =
      before !== undefined &&
      kept.length > 0 &&
      opened.messages.length >= kept.length &&
      opened.messages[0] === kept[0] &&
      opened.messages[kept.length - 1] === kept.at(-1);
    const chars = continued
      ? before.chars + charsOf(opened.messages.slice(kept.length))
      : charsOf(opened.messages);
    this.forget(conversationId);
    if (chars > this.maxChars) return;
    this.entries.set(conversationId, { opened, chars });
    this.chars += chars;
    for (const [oldest, entry] of this.entries) {
      if (this.entries.size <= this.maxConversations && this.chars <= this.maxChars) break;
      this.entries.delete(oldest);
      this.chars -= entry.chars;
    }
  }

  /** A message or the conversation was deleted (or erased): nothing of it is kept. */
  forget(conversationId: string): void {
    const entry = this.entries.get(conversationId);
    if (!entry) return;
    this.entries.delete(conversationId);
    this.chars -= entry.chars;
  }

  /** How many conversations are kept (for tests). */
  get size(): number {
    return this.entries.size;
  }
}
