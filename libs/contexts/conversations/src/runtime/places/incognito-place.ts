// An incognito conversation: kept in this process's memory only, never in the log. Its place in a turn
// (IncognitoPlace), and its reads and writer for the routes (IncognitoReads, IncognitoWriter).
import type { CommandContext } from '#eventsourcing';
import { ValidationError } from '#kernel';
import type { NewAnswer, NewCheckpoint, PlainMessage } from '../../conversation-records.js';
import { MessageNotFoundError } from '../../conversation.decider.js';
import { branchListing, type Branches } from '../../conversation-listing.js';
import type { IncognitoConversation, IncognitoConversations } from '../../incognito-conversations.js';
import type { ConversationChange, ConversationReads, ConversationWriter } from '../../owned-conversation.js';
import {
  branchHistory,
  summarised,
  type ConversationPlace,
  type TurnQuestion,
} from './conversation-place.js';

export class IncognitoPlace implements ConversationPlace {
  readonly created: boolean;
  readonly visibility = 'incognito' as const;
  /** Nothing of an incognito conversation outlives it: no memories, no sandbox. */
  readonly keepsTraces = false;
  /** Set by `history`: the checkpoint summarises messages of another branch than the turn's. */
  private offBranchCheckpoint = false;

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

  async history(parentId?: string | null): Promise<PlainMessage[]> {
    const { record, messages } = this.live;
    if (!record.branched && parentId === undefined) return [...messages];
    const branch = branchHistory(messages, record, parentId);
    this.offBranchCheckpoint = !branch.checkpointOnBranch;
    return branch.messages;
  }

  checkpoint() {
    return this.offBranchCheckpoint ? null : summarised(this.live.record.checkpoint);
  }

  async postUserMessage(question: TurnQuestion): Promise<void> {
    this.incognito.postUserMessage(
      this.live,
      question.messageId,
      question.content,
      question.attachments,
      question.at,
      question.parentId,
    );
  }

  async saveCheckpoint(checkpoint: NewCheckpoint): Promise<void> {
    this.incognito.compact(this.live, checkpoint);
  }

  async recordAnswer(answer: NewAnswer, at: Date): Promise<void> {
    this.incognito.recordAnswer(this.live, answer, at);
  }

  /** Nothing of an incognito conversation reaches the log: its tool calls are approved, never recorded. */
  async recordToolCall(): Promise<void> {}
}

/** An incognito conversation's reads: its messages in memory, in clear; pages by offset. */
export class IncognitoReads implements ConversationReads {
  constructor(private readonly live: IncognitoConversation) {}

  async messages(page: { limit: number; cursor: string | null }, branches: Branches) {
    const listing = branchListing(this.live.messages, this.live.record, branches, page);
    return {
      data: listing.data.map((message) => ({
        ...message,
        siblings: listing.siblings.get(message.id) ?? null,
      })),
      nextCursor: listing.nextCursor,
    };
  }

  async message(messageId: string): Promise<PlainMessage | null> {
    return this.live.messages.find((candidate) => candidate.id === messageId) ?? null;
  }

  async toolArguments(message: PlainMessage): Promise<(string | null)[]> {
    return (message.provenance?.toolCalls ?? []).map((call) => call.arguments);
  }

  async toolViewResults(message: PlainMessage): Promise<(string | null)[]> {
    return (message.provenance?.toolCalls ?? []).map((call) => call.view?.result ?? null);
  }

  async history(): Promise<PlainMessage[]> {
    const { record, messages } = this.live;
    return record.branched ? branchHistory(messages, record, undefined).messages : messages;
  }
}

/**
 * An incognito conversation's writer: changed at once in memory (nothing to wait for: position 0). It can only be
 * renamed: it has no stored state to archive and cannot become stored.
 */
export class IncognitoWriter implements ConversationWriter {
  constructor(
    private readonly incognito: IncognitoConversations,
    private readonly live: IncognitoConversation,
  ) {}

  async change(
    _conversationId: string,
    _userId: string,
    change: ConversationChange,
    _context: CommandContext,
  ): Promise<number> {
    const stored = (['archived', 'pinned', 'visibility'] as const).find(
      (field) => change[field] !== undefined,
    );
    if (stored)
      throw new ValidationError(
        'incognito_conversation',
        'an incognito conversation is never stored or listed: it can be renamed, not archived, pinned or made normal or private',
        stored,
      );
    this.incognito.change(this.live, change);
    return 0;
  }

  async deleteMessage(
    _conversationId: string,
    _userId: string,
    messageId: string,
    _context: CommandContext,
  ): Promise<number> {
    if (!this.incognito.deleteMessage(this.live, messageId)) throw new MessageNotFoundError(messageId);
    return 0;
  }

  async switchBranch(
    _conversationId: string,
    _userId: string,
    messageId: string,
    _context: CommandContext,
  ): Promise<number> {
    if (!this.incognito.switchBranch(this.live, messageId)) throw new MessageNotFoundError(messageId);
    return 0;
  }

  async delete(): Promise<number> {
    this.incognito.delete(this.live.record.id);
    return 0;
  }
}
