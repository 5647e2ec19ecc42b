// The opened history of the conversations turns ran in lately, so a long conversation's next turn opens only what it
// has not seen (issue 27 §2). Per conversation, the plaintext of each sealed value of its live history (sealed value →
// plaintext): a value is served only while the read model still holds that very sealed value and its key still exists
// (ContentCipher.openManyKnown checks), so a deleted or erased message, or a destroyed key, is never served, and other
// processes' writes (a changed value is another sealed value) are seen as they are. Each read keeps exactly the values
// it read; a deletion forgets its conversation at once. Bounded: least recently used conversations go first, beyond
// `maxConversations` or `maxChars` characters (sealed and plain) in all.
import { Injectable } from '@nestjs/common';

/** At most this many conversations, and this many characters in all (~2 bytes each): 64 MiB. */
export const OPENED_HISTORY_MAX_CONVERSATIONS = 256;
export const OPENED_HISTORY_MAX_CHARS = 32 * 1024 * 1024;

interface Entry {
  values: Map<string, string>;
  chars: number;
}

const charsOf = (values: ReadonlyMap<string, string>): number => {
  let chars = 0;
  for (const [sealed, plain] of values) chars += sealed.length + plain.length;
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

  /** The values known of a conversation (most recently used from now on); `keep` it after the read. */
  take(conversationId: string): Map<string, string> {
    const entry = this.entries.get(conversationId);
    if (!entry) return new Map();
    this.entries.delete(conversationId);
    this.entries.set(conversationId, entry);
    return entry.values;
  }

  /** Keeps exactly `read` (sealed → plaintext of the values a read just served) for the conversation. */
  keep(conversationId: string, read: Map<string, string>): void {
    this.forget(conversationId);
    const chars = charsOf(read);
    if (chars > this.maxChars) return;
    this.entries.set(conversationId, { values: read, chars });
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
