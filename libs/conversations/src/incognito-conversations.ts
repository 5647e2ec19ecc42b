// Incognito conversations (spec: "not retained"): they live only in this process's memory, never in the log, a read
// model, a blob or a log line; they are never listed, are forgotten after INCOGNITO_IDLE_MINUTES without a turn, and
// are gone after a restart. Model calls made for them are still recorded as usage (without content). A process keeps
// at most MAX_CONVERSATIONS of them, so they cannot grow its memory without bound.
import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { PLATFORM_CONFIG, type PlatformConfig } from '#kernel';
import {
  USER_MESSAGE_FIELDS,
  type ConversationRecord,
  type NewAnswer,
  type NewCheckpoint,
  type PlainAttachment,
  type PlainMessage,
} from './conversation-records.js';

/** Incognito conversations one process keeps at most: past it the least recently used is forgotten first. */
const MAX_CONVERSATIONS = 10_000;

interface IncognitoConversation {
  record: ConversationRecord;
  messages: PlainMessage[];
  lastUsedAt: number;
}

@Injectable()
export class IncognitoConversations implements OnModuleDestroy {
  private readonly conversations = new Map<string, IncognitoConversation>();
  private readonly sweeper: NodeJS.Timeout;

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
  }

  find(conversationId: string, userId: string, agentId: string): IncognitoConversation | null {
    const found = this.conversations.get(conversationId);
    if (!found || found.record.userId !== userId || found.record.agentId !== agentId) return null;
    this.conversations.delete(conversationId);
    if (Date.now() - found.lastUsedAt > this.config.incognitoIdleMs) return null;
    // Re-inserted: the map's order is least recently used first.
    this.conversations.set(conversationId, found);
    return found;
  }

  has(conversationId: string): boolean {
    return this.conversations.has(conversationId);
  }

  start(conversationId: string, agentId: string, userId: string, title: string, now: Date): void {
    if (this.conversations.size >= MAX_CONVERSATIONS)
      this.conversations.delete(this.conversations.keys().next().value!);
    this.conversations.set(conversationId, {
      record: {
        id: conversationId,
        agentId,
        userId,
        visibility: 'incognito',
        title,
        archived: false,
        messageCount: 0,
        lastMessageAt: null,
        createdAt: now.toISOString(),
        checkpoint: null,
      },
      messages: [],
      lastUsedAt: Date.now(),
    });
  }

  postUserMessage(
    conversation: IncognitoConversation,
    messageId: string,
    content: string,
    attachments: readonly PlainAttachment[],
    now: Date,
  ): void {
    this.append(conversation, {
      id: messageId,
      role: 'user',
      content,
      attachments,
      ...USER_MESSAGE_FIELDS,
      createdAt: now.toISOString(),
    });
  }

  recordAnswer(conversation: IncognitoConversation, answer: NewAnswer, now: Date): void {
    if (!this.conversations.has(conversation.record.id)) return;
    if (!conversation.messages.some((message) => message.id === answer.replyTo)) return;
    this.append(conversation, {
      id: answer.messageId,
      role: 'assistant',
      content: answer.content,
      attachments: [],
      citations: answer.citations,
      status: answer.status,
      replyTo: answer.replyTo,
      model: answer.provenance.model,
      finishReason: answer.finishReason,
      usage: answer.usage,
      provenance: answer.provenance,
      createdAt: now.toISOString(),
    });
  }

  compact(conversation: IncognitoConversation, checkpoint: NewCheckpoint): void {
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
    conversation.messages.splice(at, 1);
    conversation.record = {
      ...conversation.record,
      messageCount: conversation.messages.length,
      checkpoint: checkpoint && at <= through ? null : checkpoint,
    };
    return true;
  }

  delete(conversationId: string): void {
    this.conversations.delete(conversationId);
  }

  private append(conversation: IncognitoConversation, message: PlainMessage): void {
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
      if (now - conversation.lastUsedAt > this.config.incognitoIdleMs) this.conversations.delete(id);
  }
}

export type { IncognitoConversation };
