// Where a turn's conversation lives, chosen once per turn (conversation-places.ts): the log (stored-place.ts) or this
// process's memory (incognito-place.ts). The turn only speaks to this interface, so a new kind of conversation (the
// embed visitor's) is one more implementation here, not one more branch in every step of a turn.
import type { CommandContext } from '#eventsourcing';
import type { Checkpoint } from '../../compaction/compaction-boundary.js';
import { branchTo } from '../../conversation-tree.js';
import { MessageNotFoundError } from '../../conversation.decider.js';
import type { ToolCallFact } from '../../tool-call.repository.js';
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
  /** The message it follows when it starts a branch (null: before the first); absent: the conversation's head. */
  readonly parentId?: string | null | undefined;
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
  /**
   * The live messages the turn builds its history from, oldest first (from the checkpoint on, once compacted): the
   * branch ending at `parentId` when the turn starts a branch there (null: none before it), else at the head.
   */
  history(parentId?: string | null): Promise<PlainMessage[]>;
  /** The compaction checkpoint the history continues from, if it has a summary and is on the history's branch. */
  checkpoint(): (Checkpoint & { checkpointId: string }) | null;
  /** Keeps the user's message first, starting the conversation if this turn creates it. */
  postUserMessage(question: TurnQuestion, context: CommandContext): Promise<void>;
  saveCheckpoint(checkpoint: NewCheckpoint, context: CommandContext): Promise<void>;
  /** Keeps the answer, complete or incomplete. */
  recordAnswer(answer: NewAnswer, at: Date, context: CommandContext): Promise<void>;
  /** Keeps what became of a recorded tool's call (an App's): requested, approved or denied, completed or failed. */
  recordToolCall(fact: ToolCallFact, context: CommandContext): Promise<void>;
}

/** The checkpoint a history continues from: only one with a summary counts. */
export const summarised = (
  checkpoint: ConversationRecord['checkpoint'] | undefined,
): (Checkpoint & { checkpointId: string }) | null =>
  checkpoint && checkpoint.summary !== null ? { ...checkpoint, summary: checkpoint.summary } : null;

/**
 * A branched conversation's history for a turn: the branch ending at `parentId` (null: nothing before the question;
 * absent: the head), from its first message, and whether the checkpoint is on it (a summary of another branch's
 * messages is never shown).
 */
export function branchHistory(
  messages: readonly PlainMessage[],
  record: ConversationRecord,
  parentId: string | null | undefined,
): { readonly messages: PlainMessage[]; readonly checkpointOnBranch: boolean } {
  // Told before the model is called: a turn after a message that is not there fails as the post would.
  if (parentId && !messages.some((message) => message.id === parentId))
    throw new MessageNotFoundError(parentId);
  const branch =
    parentId === null ? [] : branchTo(messages, parentId === undefined ? record.headId : parentId);
  const through = record.checkpoint?.throughMessageId;
  return { messages: branch, checkpointOnBranch: branch.some((message) => message.id === through) };
}

/** Characters of a message read for its title: enough for 80 after collapsing a long run of whitespace. */
const TITLE_SCAN = 4_096;

/** A conversation's first title: its first message, on one line, cut at 80 characters. */
export const titleOf = (content: string): string => {
  // Only the head of a message can make the title: a 200,000-character message is not scanned whole.
  const line = content.slice(0, TITLE_SCAN).replace(/\s+/g, ' ').trim();
  return line.length > 80 ? `${Array.from(line).slice(0, 79).join('')}…` : line || 'New conversation';
};
