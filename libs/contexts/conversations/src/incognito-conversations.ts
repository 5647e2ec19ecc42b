// Incognito conversations (spec: "not retained"): they live only in this process's memory, never in the log, a read
// model, a blob or a log line; they are never listed, are forgotten after INCOGNITO_IDLE_MINUTES without a turn, and
// are gone after a restart. Model calls made for them are still recorded as usage (without content).
//
// Their memory is bounded by the bytes of text they hold (UTF-8: messages, attachments' extracted text, answers with
// their citations and provenance, summaries), per user (INCOGNITO_MAX_BYTES_PER_USER) and in all
// (INCOGNITO_MAX_BYTES), and by count (MAX_CONVERSATIONS). A user message that would take its user past their share
// is refused before anything of it is kept (429 incognito_limit_exceeded); one that would take the process past the
// total first forgets the least recently used idle conversations of other users, and is refused the same way when
// that cannot make room. Answers and summaries are always kept (the turn was admitted): they count from then on.
// Over 300 lines on purpose: every change to an incognito conversation keeps its byte accounting, in one place.
import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { PLATFORM_CONFIG, PlatformError, type PlatformConfig } from '#kernel';
import {
  USER_MESSAGE_FIELDS,
  type ConversationRecord,
  type NewAnswer,
  type NewCheckpoint,
  type PlainAttachment,
  type PlainMessage,
} from './conversation-records.js';
import { ConversationNotFoundError, MessageNotFoundError } from './conversation.decider.js';
import { answerMovesHead, newestUnder } from './conversation-tree.js';

/** Incognito conversations one process keeps at most: past it the least recently used is forgotten first. */
const MAX_CONVERSATIONS = 10_000;

interface IncognitoConversation {
  record: ConversationRecord;
  messages: PlainMessage[];
  lastUsedAt: number;
  /** Bytes of text it holds (`messageBytes` of each message, and its summary). */
  bytes: number;
  /** Turns of it under way (a user message kept, its answer not yet): such a conversation is not idle. */
  turns: number;
}

/** A user message refused because incognito conversations hold as much as they may. */
export class IncognitoLimitError extends PlatformError {
  constructor(message: string) {
    super('rate_limited', 'incognito_limit_exceeded', message);
  }
}

const utf8 = (text: string | null | undefined): number => (text ? Buffer.byteLength(text, 'utf8') : 0);

/** Bytes of text a message holds: its content, its attachments' names and text, an answer's citations and provenance. */
export const messageBytes = (message: PlainMessage): number => {
  let bytes = utf8(message.content);
  for (const attachment of message.attachments) bytes += utf8(attachment.name) + utf8(attachment.text);
  if (message.citations.length > 0) bytes += utf8(JSON.stringify(message.citations));
  if (message.provenance) bytes += utf8(JSON.stringify(message.provenance));
  return bytes;
};

const mb = (bytes: number): string => `${(bytes / (1024 * 1024)).toFixed(1)} MB`;

@Injectable()
export class IncognitoConversations implements OnModuleDestroy {
  private readonly conversations = new Map<string, IncognitoConversation>();
  private readonly sweeper: NodeJS.Timeout;
  /** Bytes held by each user's conversations, and by all. */
  private readonly userBytes = new Map<string, number>();
  private totalBytes = 0;

  constructor(@Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig) {
    this.sweeper = setInterval(
      () => this.sweep(),
      Math.min(60_000, Math.max(1_000, config.incognitoIdleMs / 4)),
    );
    this.sweeper.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.sweeper);
    this.conversations.clear();
    this.userBytes.clear();
    this.totalBytes = 0;
  }

  /** Bytes held in all, and by one user (what the caps are compared with). */
  held(userId?: string): number {
    return userId === undefined ? this.totalBytes : (this.userBytes.get(userId) ?? 0);
  }

  /** The live conversation with this Agent, or null; whose it is, the gate asked (ConversationResolver). */
  find(conversationId: string, agentId: string): IncognitoConversation | null {
    const found = this.conversations.get(conversationId);
    if (!found || found.record.agentId !== agentId) return null;
    this.conversations.delete(conversationId);
    if (this.idle(found)) {
      this.release(found);
      return null;
    }
    // Re-inserted: the map's order is least recently used first.
    this.conversations.set(conversationId, found);
    return found;
  }

  /** The user whose live conversation with this Agent it is, or null; it is not touched (its idle time runs on). */
  owner(conversationId: string, agentId: string): string | null {
    const found = this.conversations.get(conversationId);
    return found && found.record.agentId === agentId && !this.idle(found) ? found.record.userId : null;
  }

  private idle(conversation: IncognitoConversation): boolean {
    return Date.now() - conversation.lastUsedAt > this.config.incognitoIdleMs;
  }

  has(conversationId: string): boolean {
    return this.conversations.has(conversationId);
  }

  start(conversationId: string, agentId: string, userId: string, title: string, now: Date): void {
    if (this.conversations.size >= MAX_CONVERSATIONS) this.forget(this.conversations.keys().next().value!);
    this.conversations.set(conversationId, {
      record: {
        id: conversationId,
        agentId,
        userId,
        visibility: 'incognito',
        title,
        archived: false,
        pinned: false,
        headId: null,
        branched: false,
        messageCount: 0,
        lastMessageAt: null,
        createdAt: now.toISOString(),
        checkpoint: null,
      },
      messages: [],
      lastUsedAt: Date.now(),
      bytes: 0,
      turns: 0,
    });
  }

  /**
   * Keeps a user message, or refuses it (IncognitoLimitError) with nothing kept: not the message, nor a conversation
   * it would have started.
   */
  postUserMessage(
    conversation: IncognitoConversation,
    messageId: string,
    content: string,
    attachments: readonly PlainAttachment[],
    now: Date,
    /** The message it follows when it starts a branch (null: before the first); absent: the head. */
    parentId?: string | null,
  ): void {
    const { headId } = conversation.record;
    if (parentId && !conversation.messages.some((message) => message.id === parentId))
      throw new MessageNotFoundError(parentId);
    const message: PlainMessage = {
      id: messageId,
      role: 'user',
      content,
      attachments,
      ...USER_MESSAGE_FIELDS,
      parentId: parentId === undefined ? headId : parentId,
      createdAt: now.toISOString(),
    };
    const { id } = conversation.record;
    if (this.conversations.get(id) !== conversation) {
      // Forgotten since the turn found it (idle, or to make room): a new one is started again, a used one is gone.
      if (conversation.messages.length > 0) throw new ConversationNotFoundError(id);
      this.conversations.set(id, conversation);
    }
    try {
      this.admit(conversation, messageBytes(message));
    } catch (error) {
      if (conversation.messages.length === 0 && conversation.turns === 0) this.forget(id);
      throw error;
    }
    conversation.turns++;
    this.append(conversation, message);
    conversation.record = {
      ...conversation.record,
      headId: messageId,
      branched: conversation.record.branched || message.parentId !== headId,
    };
  }

  recordAnswer(conversation: IncognitoConversation, answer: NewAnswer, now: Date): void {
    conversation.turns = Math.max(0, conversation.turns - 1);
    if (this.conversations.get(conversation.record.id) !== conversation) return;
    if (!conversation.messages.some((message) => message.id === answer.replyTo)) return;
    this.append(conversation, {
      id: answer.messageId,
      role: 'assistant',
      content: answer.content,
      attachments: [],
      citations: answer.citations,
      status: answer.status,
      replyTo: answer.replyTo,
      parentId: answer.replyTo,
      model: answer.provenance.model,
      finishReason: answer.finishReason,
      usage: answer.usage,
      provenance: answer.provenance,
      createdAt: now.toISOString(),
    });
    const parentOf = (id: string) => conversation.messages.find((message) => message.id === id)?.parentId;
    if (answerMovesHead(conversation.record.headId, answer.replyTo, parentOf))
      conversation.record = { ...conversation.record, headId: answer.messageId };
  }

  /** Continues the conversation from the newest message of the branch holding `messageId`. */
  switchBranch(conversation: IncognitoConversation, messageId: string): boolean {
    if (!conversation.messages.some((message) => message.id === messageId)) return false;
    conversation.record = {
      ...conversation.record,
      headId: newestUnder(conversation.messages, messageId),
      branched: true,
    };
    conversation.lastUsedAt = Date.now();
    return true;
  }

  compact(conversation: IncognitoConversation, checkpoint: NewCheckpoint): void {
    if (this.conversations.get(conversation.record.id) !== conversation) return;
    this.account(conversation, utf8(checkpoint.summary) - utf8(conversation.record.checkpoint?.summary));
    conversation.record = {
      ...conversation.record,
      checkpoint: {
        checkpointId: checkpoint.checkpointId,
        throughMessageId: checkpoint.throughMessageId,
        throughOffset: checkpoint.throughOffset,
        summary: checkpoint.summary,
        model: checkpoint.model,
      },
    };
  }

  change(conversation: IncognitoConversation, change: { title?: string }): void {
    if (change.title !== undefined) conversation.record = { ...conversation.record, title: change.title };
    conversation.lastUsedAt = Date.now();
  }

  /** Removes one message; a checkpoint that summarised it goes with it. */
  deleteMessage(conversation: IncognitoConversation, messageId: string): boolean {
    const at = conversation.messages.findIndex((message) => message.id === messageId);
    if (at < 0) return false;
    const checkpoint = conversation.record.checkpoint;
    const through = checkpoint
      ? conversation.messages.findIndex((message) => message.id === checkpoint.throughMessageId)
      : -1;
    const [removed] = conversation.messages.splice(at, 1);
    // Its children follow its parent from now on: the rest of the tree is kept.
    conversation.messages = conversation.messages.map((message) =>
      message.parentId === messageId ? { ...message, parentId: removed!.parentId } : message,
    );
    const dropped = checkpoint && at <= through;
    this.account(conversation, -messageBytes(removed!) - (dropped ? utf8(checkpoint.summary) : 0));
    conversation.record = {
      ...conversation.record,
      messageCount: conversation.messages.length,
      headId: conversation.record.headId === messageId ? removed!.parentId : conversation.record.headId,
      checkpoint: dropped ? null : checkpoint,
    };
    return true;
  }

  delete(conversationId: string): void {
    this.forget(conversationId);
  }

  /**
   * Makes room for `bytes` more in `conversation`, or throws: its user's share is checked first (their own
   * conversations are never forgotten to make room: they may still want them), then the total, freed by forgetting
   * other users' idle conversations, least recently used first.
   */
  private admit(conversation: IncognitoConversation, bytes: number): void {
    const { userId } = conversation.record;
    const perUser = this.config.incognitoMaxBytesPerUser;
    const held = this.held(userId);
    if (held + bytes > perUser)
      throw new IncognitoLimitError(
        `this message (${mb(bytes)}) would take your incognito conversations past the ${mb(perUser)} they may hold ` +
          `in all (${mb(held)} held now); delete an incognito conversation, or wait for one to expire after ` +
          `INCOGNITO_IDLE_MINUTES without a turn`,
      );
    const total = this.config.incognitoMaxBytes;
    if (this.totalBytes + bytes > total)
      for (const [id, other] of this.conversations) {
        if (this.totalBytes + bytes <= total) break;
        if (other.record.userId !== userId && other.turns === 0) this.forget(id);
      }
    if (this.totalBytes + bytes > total)
      throw new IncognitoLimitError(
        `incognito conversations on this server hold as much as they may (${mb(total)}); ` +
          'try again once a turn under way has finished, or use a normal or private conversation',
      );
  }

  private account(conversation: IncognitoConversation, bytes: number): void {
    const { userId } = conversation.record;
    conversation.bytes += bytes;
    this.totalBytes += bytes;
    const held = (this.userBytes.get(userId) ?? 0) + bytes;
    if (held > 0) this.userBytes.set(userId, held);
    else this.userBytes.delete(userId);
  }

  private release(conversation: IncognitoConversation): void {
    this.account(conversation, -conversation.bytes);
  }

  private forget(conversationId: string): void {
    const conversation = this.conversations.get(conversationId);
    if (!conversation) return;
    this.conversations.delete(conversationId);
    this.release(conversation);
  }

  private append(conversation: IncognitoConversation, message: PlainMessage): void {
    this.account(conversation, messageBytes(message));
    conversation.messages.push(message);
    conversation.lastUsedAt = Date.now();
    conversation.record = {
      ...conversation.record,
      messageCount: conversation.messages.length,
      lastMessageAt: message.createdAt,
    };
  }

  private sweep(): void {
    const now = Date.now();
    for (const [id, conversation] of this.conversations)
      if (now - conversation.lastUsedAt > this.config.incognitoIdleMs) this.forget(id);
  }
}

export type { IncognitoConversation };
