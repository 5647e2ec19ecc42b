// The query side of normal and private conversations: the read models' documents opened with their data keys (the
// message's own, the conversation's for its title, the checkpoint's for its summary). Used by the query handlers and
// by the runtime (through the stored place); it writes nothing (writes: conversation.repository.ts).
// Over 300 lines on purpose: every read of the conversation read models opens sealed texts with the same keys and
// cipher; the search among them reads the same documents.
import { Inject, Injectable, Optional } from '@nestjs/common';
import { ContentCipher } from '#key-store';
import { READ_STORE, type Filter, type ReadStore } from '#read-store';
import type { ConversationRecord, ListedMessage, PlainMessage } from './conversation-records.js';
import {
  CONVERSATION_MESSAGES,
  CONVERSATIONS,
  type ConversationView,
  type MessageView,
} from './conversations.read-model.js';
import { OpenedHistory, type OpenedMessages } from './opened-history.js';
import { ConversationWrites } from './conversation-writes.js';

const PAGE = 200;

/**
 * How far a search reads: the caller's newest conversations, and of them (newest first, each one's newest messages
 * first) at most this many messages, each opened with its key.
 */
export const SEARCH_BOUNDS = { conversations: 200, messages: 5_000 } as const;

/** A message's stored document as a listing reads it. */
type ListedView = Omit<MessageView, 'usage' | 'provenance'>;

/** A message as a conversation's tree sees it. */
export interface OutlineNode {
  readonly id: string;
  readonly parentId: string | null;
  readonly role: 'user' | 'assistant';
}

/** What an outline leaves unread of each message document. */
const OUTLINE_OMITS = ['content', 'attachments', 'citations', 'usage', 'provenance'] as const;

/**
 * What of a kept history a read from `fromMessageId` (null: the first message) can serve: all of it, or its tail from
 * that message on; null when it does not reach back that far (the read starts anew).
 */
function servable(
  kept: OpenedMessages,
  fromMessageId: string | null,
): Pick<OpenedMessages, 'fromStart' | 'throughSeq' | 'messages'> | null {
  if (fromMessageId === null) return kept.fromStart ? kept : null;
  const at = kept.messages.findIndex((message) => message.id === fromMessageId);
  if (at < 0) return null;
  return {
    fromStart: kept.fromStart && at === 0,
    throughSeq: kept.throughSeq,
    messages: kept.messages.slice(at),
  };
}

@Injectable()
export class ConversationReader {
  constructor(
    private readonly cipher: ContentCipher,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    /** What the last turns opened, so the next one opens only what is new (opened-history.ts). */
    @Optional() private readonly opened: OpenedHistory = new OpenedHistory(),
    /**
     * What a turn appended and the read models may not show yet: the reads wait for it (conversation-writes.ts). Named
     * by its token: a parameter typed `X | null` carries no type for Nest to resolve, and an optional one is then
     * silently left out.
     */
    @Optional() @Inject(ConversationWrites) private readonly writes: ConversationWrites | null = null,
  ) {}

  /**
   * The conversation with this Agent, or null (another Agent's, unknown, deleted). Whose it is, the gate asked
   * (ConversationResolver), or the turn's key made it the caller's.
   */
  async find(conversationId: string, agentId: string): Promise<ConversationRecord | null> {
    await this.writes?.settled(conversationId);
    const view = await this.view(conversationId, agentId);
    return view ? this.open(view) : null;
  }

  /** The user whose conversation with this Agent it is, or null (another Agent's, unknown, deleted). */
  async owner(conversationId: string, agentId: string): Promise<string | null> {
    await this.writes?.settled(conversationId);
    return (await this.view(conversationId, agentId))?.userId ?? null;
  }

  async list(
    agentId: string,
    userId: string,
    archived: 'true' | 'false' | 'all',
    page: { limit: number; cursor: string | null },
  ): Promise<{ data: ConversationRecord[]; nextCursor: string | null }> {
    await this.writes?.settledFor(userId);
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
    await this.writes?.settledFor(userId);
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

  /**
   * The user's conversations with the Agent whose title or one of whose messages contains `text` (case-insensitive),
   * newest first. The texts are sealed, so each is opened here: within SEARCH_BOUNDS, a search answers in bounded
   * time however long the history (older conversations and messages past the bounds are not searched).
   */
  async search(
    agentId: string,
    userId: string,
    archived: 'true' | 'false' | 'all',
    text: string,
    bounds: { conversations: number; messages: number } = SEARCH_BOUNDS,
  ): Promise<ConversationRecord[]> {
    await this.writes?.settledFor(userId);
    const needle = text.toLocaleLowerCase();
    const contains = (value: string | null | undefined) =>
      value?.toLocaleLowerCase().includes(needle) ?? false;
    const conversations = await this.readStore
      .reader<ConversationView>(CONVERSATIONS)
      .find(
        { agentId, userId, ...(archived === 'all' ? {} : { archived: archived === 'true' }) },
        { sort: { field: 'createdAt', direction: 'desc' }, limit: bounds.conversations },
      );
    let budget = bounds.messages;
    const found: ConversationRecord[] = [];
    for (const view of conversations.data) {
      const record = await this.open(view);
      if (contains(record.title)) found.push(record);
      else if (budget > 0) {
        const messages = await this.readStore
          .reader<ListedView>(CONVERSATION_MESSAGES)
          .find(
            { conversationId: view.id },
            { sort: { field: 'seq', direction: 'desc' }, limit: budget, omit: ['usage', 'provenance'] },
          );
        budget -= messages.data.length;
        const texts = await this.cipher.openMany(messages.data.map((message) => message.content));
        if (texts.some(contains)) found.push(record);
      }
    }
    return found;
  }

  /**
   * One page of the conversation's messages, oldest first, opened. An answer's provenance (its sources, prompt and
   * context record) is most of its stored document and no listing shows it: the page is read without it.
   */
  async messages(
    conversationId: string,
    page: { limit: number; cursor: string | null },
  ): Promise<{ data: ListedMessage[]; nextCursor: string | null }> {
    await this.writes?.settled(conversationId);
    const result = await this.readStore
      .reader<ListedView>(CONVERSATION_MESSAGES)
      .find(
        { conversationId },
        { sort: { field: 'seq' }, limit: page.limit, cursor: page.cursor, omit: ['usage', 'provenance'] },
      );
    return { data: await this.openListed(result.data), nextCursor: result.nextCursor };
  }

  /**
   * Every live message of the conversation as its tree sees it (id, parent, role), oldest first: what a branched
   * conversation's listing walks before it opens the page it shows. No text is read or opened.
   */
  async outline(conversationId: string): Promise<OutlineNode[]> {
    await this.writes?.settled(conversationId);
    const nodes: OutlineNode[] = [];
    let cursor: string | null = null;
    do {
      const result: { data: OutlineNode[]; nextCursor: string | null } = await this.readStore
        .reader<MessageView>(CONVERSATION_MESSAGES)
        .find({ conversationId }, { sort: { field: 'seq' }, limit: 1_000, cursor, omit: [...OUTLINE_OMITS] });
      for (const { id, parentId, role } of result.data) nodes.push({ id, parentId, role });
      cursor = result.nextCursor;
    } while (cursor);
    return nodes;
  }

  /** These messages of the conversation, opened, oldest first (without usage and provenance, as a listing). */
  async messagesIn(conversationId: string, ids: readonly string[]): Promise<ListedMessage[]> {
    if (ids.length === 0) return [];
    await this.writes?.settled(conversationId);
    const result = await this.readStore
      .reader<ListedView>(CONVERSATION_MESSAGES)
      .find(
        { conversationId, id: { $in: ids } },
        { sort: { field: 'seq' }, limit: ids.length, omit: ['usage', 'provenance'] },
      );
    return this.openListed(result.data);
  }

  /**
   * The live messages a turn builds its history from, oldest first: every one, or, once the conversation is compacted,
   * those from the checkpoint's message on (the model never sees what the summary covers), so a long conversation's
   * turn reads and opens a bounded tail instead of its whole history. What the last read served is served again
   * while no key of the conversation was destroyed since (opened-history.ts): then only the messages after it are
   * read and opened, and the same message objects come back.
   */
  async history(conversationId: string, fromMessageId: string | null = null): Promise<PlainMessage[]> {
    await this.writes?.settled(conversationId);
    // Read before anything is opened: a key destroyed after this changes it, and the next read starts anew.
    const destructions = await this.cipher.destructions(conversationId);
    const kept = destructions === null ? null : this.opened.take(conversationId);
    const base = kept && kept.destructions === destructions ? servable(kept, fromMessageId) : null;
    // A kept history is continued after its last message; else the read starts at the checkpoint's message (when it
    // is still there) or at the first.
    const from =
      !base && fromMessageId
        ? await this.readStore.reader<MessageView>(CONVERSATION_MESSAGES).get(fromMessageId)
        : null;
    const fromSeq = from && from.conversationId === conversationId ? from.seq : null;
    const filter: Filter = base
      ? { conversationId, seq: { $gt: base.throughSeq } }
      : fromSeq !== null
        ? { conversationId, seq: { $gte: fromSeq } }
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
    const messages = [...(base?.messages ?? []), ...(await this.openMessages(views))];
    if (destructions === null) return messages;
    this.opened.keep(conversationId, {
      destructions,
      fromStart: base ? base.fromStart : fromSeq === null,
      throughSeq: views.at(-1)?.seq ?? base?.throughSeq ?? -1,
      messages,
    });
    return [...messages];
  }

  /** One message, opened (its tool calls' arguments stay sealed: `toolArguments` opens them). */
  async message(conversationId: string, messageId: string): Promise<PlainMessage | null> {
    await this.writes?.settled(conversationId);
    const view = await this.readStore.reader<MessageView>(CONVERSATION_MESSAGES).get(messageId);
    if (!view || view.conversationId !== conversationId) return null;
    return (await this.openMessages([view]))[0]!;
  }

  /** The arguments of an answer's tool calls, opened with the message's key (null where it is gone). */
  toolArguments(message: PlainMessage): Promise<(string | null)[]> {
    return this.cipher.openMany((message.provenance?.toolCalls ?? []).map((call) => call.arguments));
  }

  /** The results an answer's tool calls' MCP App views are given, opened (null where erased or without a view). */
  toolViewResults(message: PlainMessage): Promise<(string | null)[]> {
    return this.cipher.openMany(
      (message.provenance?.toolCalls ?? []).map((call) => call.view?.result ?? null),
    );
  }

  private async view(conversationId: string, agentId: string): Promise<ConversationView | null> {
    const view = await this.readStore.reader<ConversationView>(CONVERSATIONS).get(conversationId);
    return view && view.agentId === agentId ? view : null;
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
      pinned: view.pinned ?? false,
      headId: view.headId,
      branched: view.branched,
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
    const listed = await this.openListed(views);
    return listed.map((message, i) => ({
      ...message,
      usage: views[i]!.usage,
      provenance: views[i]!.provenance,
    }));
  }

  /** Opens messages read without usage and provenance, with one key look-up for all of them. */
  private async openListed(views: readonly ListedView[]): Promise<ListedMessage[]> {
    const sealed: (string | null)[] = [];
    for (const view of views) {
      sealed.push(view.content);
      for (const attachment of view.attachments) sealed.push(attachment.name, attachment.text);
      for (const citation of view.citations) if (citation.summary) sealed.push(citation.summary.text);
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
      const citations = view.citations.map((citation) =>
        citation.summary
          ? { ...citation, summary: { ...citation.summary, text: opened[next++] ?? '' } }
          : citation,
      );
      return {
        id: view.id,
        role: view.role,
        content,
        attachments,
        citations,
        status: view.status,
        replyTo: view.replyTo,
        parentId: view.parentId,
        model: view.model,
        finishReason: view.finishReason,
        createdAt: view.createdAt,
      };
    });
  }
}
