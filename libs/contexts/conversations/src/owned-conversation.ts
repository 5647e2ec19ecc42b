// A conversation a route may touch, resolved once by the directory (conversation-directory.ts): whichever kind it is
// (stored in the log, or incognito in this process's memory), the query and command handlers read it through its
// `reads` and change it through its `writer`, never asking which kind it is. The stored kind's writer is the
// ConversationRepository itself (the handler calls its decide methods); the incognito kind's is its memory.
import type { AgentView } from '#agents';
import type { CommandContext } from '#eventsourcing';
import type { ConversationRecord, ListedMessage, PlainMessage } from './conversation-records.js';
import type { StoredVisibility } from './conversation.events.js';
import type { Branches } from './conversation-listing.js';

/** A listed message with its alternatives (null: it has none). */
export type BranchedMessage = ListedMessage & {
  readonly siblings: { readonly ids: readonly string[]; readonly index: number } | null;
};

/** What a route may change of a conversation (an incognito one refuses all but the title). */
export interface ConversationChange {
  readonly title?: string;
  readonly archived?: boolean;
  readonly pinned?: boolean;
  readonly visibility?: StoredVisibility;
}

/** The reads of one conversation, opened. */
export interface ConversationReads {
  /**
   * One page of its messages, oldest first (without answers' usage and provenance: `message` has them): the branch it
   * continues, or every message; each with its alternatives.
   */
  messages(
    page: { limit: number; cursor: string | null },
    branches: Branches,
  ): Promise<{ data: BranchedMessage[]; nextCursor: string | null }>;
  /** One of its messages, or null. */
  message(messageId: string): Promise<PlainMessage | null>;
  /** The arguments of an answer's tool calls, opened (null where erased). */
  toolArguments(message: PlainMessage): Promise<(string | null)[]>;
  /** The results its tool calls' MCP App views are given, opened (null where erased or without a view). */
  toolViewResults(message: PlainMessage): Promise<(string | null)[]>;
  /** The live messages the model's view is built from, oldest first (from the checkpoint on, once compacted). */
  history(): Promise<PlainMessage[]>;
}

/**
 * The writes a route makes to a conversation. Each answers the log position to wait for before the next read (0:
 * nothing to wait for, as for an incognito conversation, which is changed at once in memory).
 */
export interface ConversationWriter {
  change(
    conversationId: string,
    userId: string,
    change: ConversationChange,
    context: CommandContext,
  ): Promise<number>;
  /** Continues the conversation from the branch holding `messageId` (at its newest message). */
  switchBranch(
    conversationId: string,
    userId: string,
    messageId: string,
    context: CommandContext,
  ): Promise<number>;
  deleteMessage(
    conversationId: string,
    userId: string,
    messageId: string,
    context: CommandContext,
  ): Promise<number>;
  delete(
    conversationId: string,
    userId: string | null,
    reason: 'requested' | 'agent_deleted',
    context: CommandContext,
  ): Promise<number>;
}

export interface OwnedConversation {
  readonly agent: AgentView;
  /** The user whose conversation it is (the principal's). */
  readonly userId: string;
  readonly record: ConversationRecord;
  readonly reads: ConversationReads;
  readonly writer: ConversationWriter;
}
