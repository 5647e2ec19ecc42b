// Where a turn's conversation lives, chosen once per turn (conversation-places.ts): the log (stored-place.ts) or this
// process's memory (incognito-place.ts). The turn only speaks to this interface, so a new kind of conversation (the
// embed visitor's) is one more implementation here, not one more branch in every step of a turn.
import type { CommandContext } from '#eventsourcing';
import type { Checkpoint } from '../../compaction/compaction-boundary.js';
import type {
  ConversationRecord,
  NewAnswer,
  NewCheckpoint,
  PlainAttachment,
  PlainMessage,
  Visibility,
} from '../../conversation-records.js';

/** The user's message of a turn, as the place keeps it. */
export interface TurnQuestion {
  readonly messageId: string;
  /** The id the turn's answer will have. */
  readonly answerId: string;
  readonly content: string;
  readonly attachments: readonly PlainAttachment[];
  readonly at: Date;
  /**
   * Settles when the turn's context is gathered. A stored place commits the message's data keys at once (in the key
   * store's thread) but appends it only after this, and after the model's request has had a turn of the event loop
   * to leave: the append's fsync and the projections it wakes would otherwise hold the loop while the retrieval runs
   * or while the request waits to be written (undici writes to a reused connection in the next check phase).
   */
  readonly appendAfter?: Promise<unknown>;
}

export interface ConversationPlace {
  /** True when this turn starts the conversation. */
  readonly created: boolean;
  /** The conversation's visibility (what the `conversation` event and the answer say). */
  readonly visibility: Visibility;
  /** Whether the turn may leave traces beyond the conversation (memories, a code sandbox): see TurnContext. */
  readonly keepsTraces: boolean;
  /** The conversation as recorded; null before its first message is kept. */
  record(): ConversationRecord | null;
  /** One message of the conversation, or null. */
  message(messageId: string): Promise<PlainMessage | null>;
  /** The live messages the turn builds its history from, oldest first (from the checkpoint on, once compacted). */
  history(): Promise<PlainMessage[]>;
  /** The compaction checkpoint the history continues from, if it has a summary. */
  checkpoint(): (Checkpoint & { checkpointId: string }) | null;
  /** Keeps the user's message first, starting the conversation if this turn creates it. */
  postUserMessage(question: TurnQuestion, context: CommandContext): Promise<void>;
  saveCheckpoint(checkpoint: NewCheckpoint, context: CommandContext): Promise<void>;
  /** Keeps the answer, complete or incomplete. */
  recordAnswer(answer: NewAnswer, at: Date, context: CommandContext): Promise<void>;
}

/** The checkpoint a history continues from: only one with a summary counts. */
export const summarised = (
  checkpoint: ConversationRecord['checkpoint'] | undefined,
): (Checkpoint & { checkpointId: string }) | null =>
  checkpoint && checkpoint.summary !== null ? { ...checkpoint, summary: checkpoint.summary } : null;

/** Characters of a message read for its title: enough for 80 after collapsing a long run of whitespace. */
const TITLE_SCAN = 4_096;

/** A conversation's first title: its first message, on one line, cut at 80 characters. */
export const titleOf = (content: string): string => {
  // Only the head of a message can make the title: a 200,000-character message is not scanned whole.
  const line = content.slice(0, TITLE_SCAN).replace(/\s+/g, ' ').trim();
  return line.length > 80 ? `${Array.from(line).slice(0, 79).join('')}…` : line || 'New conversation';
};
