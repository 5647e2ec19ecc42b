// Normal and private conversations: decisions go through the Conversation decider into the log, reads come from the
// read models, and every text is sealed on the way in and opened on the way out with its data key (the message's
// own, the conversation's for its title, the checkpoint's for its summary), all filed under the conversation so that
// deleting it destroys them together.
import { Inject, Injectable } from '@nestjs/common';
import type { CommandContext } from '#eventsourcing';
import { ContentCipher, KEY_STORE, type KeyStore } from '#key-store';
import { AggregateRepository, ReadYourWritesBus } from '#eventsourcing';
import { READ_STORE, type Filter, type ReadStore } from '#read-store';
import { conversationDecider, type ConversationCommand } from './conversation.decider.js';
import { conversationStreamId, type StoredVisibility } from './conversation.events.js';
import type {
  ConversationRecord,
  NewAnswer,
  NewCheckpoint,
  PlainAttachment,
  PlainMessage,
} from './conversation-records.js';
import {
  CONVERSATION_MESSAGES,
  CONVERSATIONS,
  CONVERSATIONS_READ_MODEL,
  MESSAGES_READ_MODEL,
  type ConversationView,
  type MessageView,
} from './conversations.read-model.js';

const PAGE = 200;

type Settles = Parameters<ReadYourWritesBus['settle']>[1][number];

@Injectable()
export class StoredConversations {
  private readonly erasureFollowers: Settles[] = [];

  constructor(
    private readonly aggregates: AggregateRepository,
    private readonly sender: ReadYourWritesBus,
    private readonly cipher: ContentCipher,
    @Inject(KEY_STORE) private readonly keys: KeyStore,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
  ) {}

  /** The caller's conversation with this Agent, or null (another user's, another Agent's, unknown, deleted). */
  async find(conversationId: string, userId: string, agentId: string): Promise<ConversationRecord | null> {
    const view = await this.readStore.reader<ConversationView>(CONVERSATIONS).get(conversationId);
    if (!view || view.userId !== userId || view.agentId !== agentId) return null;
    return this.open(view);
  }

  async list(
    agentId: string,
    userId: string,
    archived: 'true' | 'false' | 'all',
    page: { limit: number; cursor: string | null },
  ): Promise<{ data: ConversationRecord[]; nextCursor: string | null }> {
    const result = await this.readStore
      .reader<ConversationView>(CONVERSATIONS)
      .find(
        { agentId, userId, ...(archived === 'all' ? {} : { archived: archived === 'true' }) },
        { sort: { field: 'createdAt' }, limit: page.limit, cursor: page.cursor },
      );
    const titles = await this.cipher.openMany(result.data.map((view) => view.title));
    return {
      data: result.data.map((view, i) => this.record(view, titles[i] ?? null, null)),
      nextCursor: result.nextCursor,
    };
  }

  /**
   * Every `normal` (never private, never incognito) conversation of the user with the Agent, titles opened, at most
   * `bound` of them (the bridge's findMany filters and orders them); `truncated` when there were more.
   */
  async listShareable(
    agentId: string,
    userId: string,
    archived: boolean | null,
    bound: number,
  ): Promise<{ data: ConversationRecord[]; truncated: boolean }> {
    const records: ConversationRecord[] = [];
    let cursor: string | null = null;
    do {
      const page: { data: ConversationView[]; nextCursor: string | null } = await this.readStore
        .reader<ConversationView>(CONVERSATIONS)
        .find(
          { agentId, userId, visibility: 'normal', ...(archived === null ? {} : { archived }) },
          { sort: { field: 'createdAt' }, limit: 200, cursor },
        );
      const titles = await this.cipher.openMany(page.data.map((view) => view.title));
      page.data.forEach((view, i) => records.push(this.record(view, titles[i] ?? null, null)));
      cursor = page.nextCursor;
    } while (cursor && records.length < bound);
    return { data: records.slice(0, bound), truncated: cursor !== null || records.length > bound };
  }

  /** One page of the conversation's messages, oldest first, opened. */
  async messages(
    conversationId: string,
    page: { limit: number; cursor: string | null },
  ): Promise<{ data: PlainMessage[]; nextCursor: string | null }> {
    const result = await this.readStore
      .reader<MessageView>(CONVERSATION_MESSAGES)
      .find({ conversationId }, { sort: { field: 'seq' }, limit: page.limit, cursor: page.cursor });
    return { data: await this.openMessages(result.data), nextCursor: result.nextCursor };
  }

  /**
   * The live messages a turn builds its history from, oldest first: every one, or, once the conversation is compacted,
   * those from the checkpoint's message on (the model never sees what the summary covers), so a long conversation's
   * turn reads and opens a bounded tail instead of its whole history.
   */
  async history(conversationId: string, fromMessageId: string | null = null): Promise<PlainMessage[]> {
    const from = fromMessageId
      ? await this.readStore.reader<MessageView>(CONVERSATION_MESSAGES).get(fromMessageId)
      : null;
    const filter: Filter =
      from && from.conversationId === conversationId
        ? { conversationId, seq: { $gte: from.seq } }
        : { conversationId };
    const views: MessageView[] = [];
    let cursor: string | null = null;
    do {
      const result = await this.readStore
        .reader<MessageView>(CONVERSATION_MESSAGES)
        .find(filter, { sort: { field: 'seq' }, limit: PAGE, cursor });
      views.push(...result.data);
      cursor = result.nextCursor;
    } while (cursor);
    return this.openMessages(views);
  }

  async message(conversationId: string, messageId: string): Promise<PlainMessage | null> {
    const view = await this.readStore.reader<MessageView>(CONVERSATION_MESSAGES).get(messageId);
    if (!view || view.conversationId !== conversationId) return null;
    return (await this.openMessages([view]))[0]!;
  }

  async postUserMessage(
    turn: {
      conversationId: string;
      agentId: string;
      userId: string;
      start: { apiKeyId: string; visibility: StoredVisibility; title: string } | null;
      messageId: string;
      content: string;
      attachments: readonly PlainAttachment[];
    },
    context: CommandContext,
  ): Promise<void> {
    const { conversationId, messageId } = turn;
    const seal = (text: string) => this.cipher.seal(messageId, conversationId, text);
    const result = await this.run(
      {
        type: 'StartTurn',
        conversationId,
        userId: turn.userId,
        agentId: turn.agentId,
        start: turn.start && {
          apiKeyId: turn.start.apiKeyId,
          visibility: turn.start.visibility,
          title: await this.cipher.seal(conversationId, conversationId, turn.start.title),
        },
        messageId,
        content: await seal(turn.content),
        attachments: await Promise.all(
          turn.attachments.map(async (attachment) => ({
            documentId: attachment.documentId,
            name: await seal(attachment.name),
            mimeType: attachment.mimeType,
            sizeBytes: attachment.sizeBytes,
            text: attachment.text === null ? null : await seal(attachment.text),
          })),
        ),
      },
      context,
    );
    await this.sender.settle(result.position, [CONVERSATIONS_READ_MODEL, MESSAGES_READ_MODEL]);
  }

  async recordAnswer(conversationId: string, answer: NewAnswer, context: CommandContext): Promise<void> {
    const seal = (text: string) => this.cipher.seal(answer.messageId, conversationId, text);
    const result = await this.run(
      {
        type: 'RecordAnswer',
        conversationId,
        answer: {
          ...answer,
          content: await seal(answer.content),
          provenance: {
            ...answer.provenance,
            toolCalls: await Promise.all(
              answer.provenance.toolCalls.map(async (call) => ({
                ...call,
                arguments: await seal(call.arguments),
              })),
            ),
          },
        },
      },
      context,
    );
    await this.sender.settle(result.position, [CONVERSATIONS_READ_MODEL, MESSAGES_READ_MODEL]);
  }

  async compact(conversationId: string, checkpoint: NewCheckpoint, context: CommandContext): Promise<void> {
    const summary = await this.cipher.seal(checkpoint.checkpointId, conversationId, checkpoint.summary);
    await this.run(
      { type: 'CompactConversation', conversationId, checkpoint: { ...checkpoint, summary } },
      context,
    );
  }

  async change(
    conversationId: string,
    userId: string,
    change: { title?: string; archived?: boolean; visibility?: StoredVisibility },
    context: CommandContext,
  ): Promise<number> {
    const { title, ...flags } = change;
    const result = await this.run(
      {
        type: 'ChangeConversation',
        conversationId,
        userId,
        ...flags,
        ...(title !== undefined
          ? { title: await this.cipher.seal(conversationId, conversationId, title) }
          : {}),
      },
      context,
    );
    return result.position;
  }

  /** Deletes one message: its key is destroyed at once (and again by the erasure process, should this process die). */
  async deleteMessage(conversationId: string, userId: string, messageId: string, context: CommandContext) {
    const result = await this.run({ type: 'DeleteMessage', conversationId, userId, messageId }, context);
    await this.keys.destroy(messageId);
    for (const event of result.events)
      if (event.type === 'CheckpointDiscarded') await this.keys.destroy(event.data.checkpointId);
    return result.position;
  }

  async delete(
    conversationId: string,
    userId: string | null,
    reason: 'requested' | 'agent_deleted',
    context: CommandContext,
  ): Promise<number> {
    const result = await this.run({ type: 'DeleteConversation', conversationId, userId, reason }, context);
    await this.keys.destroyGroup(conversationId);
    return result.position;
  }

  settle(position: number): Promise<boolean> {
    return this.sender.settle(position, [CONVERSATIONS_READ_MODEL, MESSAGES_READ_MODEL]);
  }

  /**
   * Another context that erases content of its own with a message or a conversation (code runs) names the
   * projection doing it, so a deletion answers once that content is gone too.
   */
  followErasure(follower: Settles): void {
    if (!this.erasureFollowers.some((known) => known.projection === follower.projection))
      this.erasureFollowers.push(follower);
  }

  /** Waits for the read models and for every erasure follower to apply a deletion's position. */
  settleErasure(position: number): Promise<boolean> {
    return this.sender.settle(position, [
      CONVERSATIONS_READ_MODEL,
      MESSAGES_READ_MODEL,
      ...this.erasureFollowers,
    ]);
  }

  private run(command: ConversationCommand, context: CommandContext) {
    return this.aggregates.decide(
      conversationStreamId(command.conversationId),
      conversationDecider,
      command,
      context,
    );
  }

  private async open(view: ConversationView): Promise<ConversationRecord> {
    const [title, summary] = await this.cipher.openMany([view.title, view.checkpoint?.summary ?? null]);
    return this.record(view, title ?? null, summary ?? null);
  }

  private record(view: ConversationView, title: string | null, summary: string | null): ConversationRecord {
    return {
      id: view.id,
      agentId: view.agentId,
      userId: view.userId,
      visibility: view.visibility,
      title,
      archived: view.archived,
      messageCount: view.messageCount,
      lastMessageAt: view.lastMessageAt,
      createdAt: view.createdAt,
      checkpoint: view.checkpoint && {
        checkpointId: view.checkpoint.checkpointId,
        throughMessageId: view.checkpoint.throughMessageId,
        throughOffset: view.checkpoint.throughOffset,
        model: view.checkpoint.model,
        summary,
      },
    };
  }

  /** Opens a page of messages with one key look-up for all of them. */
  private async openMessages(views: readonly MessageView[]): Promise<PlainMessage[]> {
    const sealed: (string | null)[] = [];
    for (const view of views) {
      sealed.push(view.content);
      for (const attachment of view.attachments) sealed.push(attachment.name, attachment.text);
    }
    const opened = await this.cipher.openMany(sealed);
    let next = 0;
    return views.map((view) => {
      const content = opened[next++] ?? null;
      const attachments = view.attachments.map((attachment) => ({
        documentId: attachment.documentId,
        mimeType: attachment.mimeType,
        sizeBytes: attachment.sizeBytes,
        name: opened[next++] ?? '',
        text: opened[next++] ?? null,
      }));
      return {
        id: view.id,
        role: view.role,
        content,
        attachments,
        citations: view.citations,
        status: view.status,
        replyTo: view.replyTo,
        model: view.model,
        finishReason: view.finishReason,
        usage: view.usage,
        provenance: view.provenance,
        createdAt: view.createdAt,
      };
    });
  }
}
