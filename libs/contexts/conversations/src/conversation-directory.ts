// The conversation a message names, once the gate asked that it is the principal's own of an Agent it may use
// (conversation-resolver.ts): stored or incognito, resolved once here into its reads and its writer
// (owned-conversation.ts), so no handler asks which kind it is. Any other id (another Agent's, unknown, deleted, an
// incognito one forgotten) is 404, as the gate answers another user's, so ids cannot be probed.
import { Inject, Injectable } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { agentById, type AgentView } from '#agents';
import type { Settles } from '#eventsourcing';
import { asPrincipal, ownerIdOf, type PrincipalOrCaller } from '#access';
import { READ_STORE, type ReadStore } from '#read-store';
import { ConversationNotFoundError } from './conversation.decider.js';
import type { ConversationRecord } from './conversation-records.js';
import { ConversationReader } from './conversation.reader.js';
import { ConversationRepository } from './conversation.repository.js';
import { CONVERSATIONS_READ_MODEL, MESSAGES_READ_MODEL } from './conversations.read-model.js';
import { IncognitoConversations } from './incognito-conversations.js';
import { UseConversation } from './queries/use-conversation/use-conversation.query.js';
import type { OwnedConversation } from './owned-conversation.js';
import { IncognitoReads, IncognitoWriter } from './runtime/places/incognito-place.js';
import { StoredReads } from './runtime/places/stored-place.js';
import { promptMessages, toHistory } from './runtime/turn-prompt.js';

/**
 * Whose conversations a principal reaches: an API key's or a session's user; an embed visitor's own (filed under its
 * visitor id, private to that visit); the others have none.
 */
const userOf = (who: PrincipalOrCaller): string | null => ownerIdOf(asPrincipal(who));

@Injectable()
export class ConversationDirectory {
  private readonly erasureFollowers: Settles[] = [];

  constructor(
    private readonly reader: ConversationReader,
    private readonly repository: ConversationRepository,
    private readonly incognito: IncognitoConversations,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    private readonly queries: QueryBus,
  ) {}

  /** The Agent a conversation route names, or 404. */
  agent(agentId: string): Promise<AgentView> {
    return agentById(this.readStore, agentId);
  }

  /**
   * The conversation of this Agent, whichever kind, or 404 `conversation_not_found`. A caller that is no message of
   * this context declaring it (another context's) names `who`: the gate is asked about it through UseConversation.
   */
  async owned(agentId: string, conversationId: string, who?: PrincipalOrCaller): Promise<OwnedConversation> {
    if (who !== undefined) await this.queries.execute(new UseConversation(agentId, conversationId, who));
    const agent = await this.agent(agentId);
    const live = this.incognito.find(conversationId, agent.id);
    if (live)
      return {
        agent,
        userId: live.record.userId,
        record: live.record,
        reads: new IncognitoReads(live),
        writer: new IncognitoWriter(this.incognito, live),
      };
    const record = await this.reader.find(conversationId, agent.id);
    if (!record) throw new ConversationNotFoundError(conversationId);
    return {
      agent,
      userId: record.userId,
      record,
      reads: new StoredReads(this.reader, record),
      writer: this.repository,
    };
  }

  /** The principal's stored conversations with the Agent (incognito ones are never listed), oldest first. */
  async list(
    agentId: string,
    who: PrincipalOrCaller,
    archived: 'true' | 'false' | 'all',
    page: { limit: number; cursor: string | null },
  ): Promise<{ data: ConversationRecord[]; nextCursor: string | null }> {
    const agent = await this.agent(agentId);
    const userId = userOf(who);
    if (userId === null) return { data: [], nextCursor: null };
    return this.reader.list(agent.id, userId, archived, page);
  }

  /** The principal's stored conversations with the Agent whose title or messages contain `text` (reader.search). */
  async search(
    agentId: string,
    who: PrincipalOrCaller,
    archived: 'true' | 'false' | 'all',
    text: string,
  ): Promise<ConversationRecord[]> {
    const agent = await this.agent(agentId);
    const userId = userOf(who);
    return userId === null ? [] : this.reader.search(agent.id, userId, archived, text);
  }

  /**
   * Another context that erases content of its own with a message or a conversation (code runs) names the
   * projection doing it, so a deletion answers once that content is gone too.
   */
  followErasure(follower: Settles): void {
    if (!this.erasureFollowers.some((known) => known.projection === follower.projection))
      this.erasureFollowers.push(follower);
  }

  /** What a deletion waits for: the read models, and every erasure follower. */
  erasureSettles(): Settles[] {
    return [CONVERSATIONS_READ_MODEL, MESSAGES_READ_MODEL, ...this.erasureFollowers];
  }
}

/** A conversation as the routes answer it. */
export const toConversationDto = (record: ConversationRecord) => ({
  id: record.id,
  agentId: record.agentId,
  title: record.title,
  visibility: record.visibility,
  archived: record.archived,
  pinned: record.pinned,
  headId: record.headId,
  messageCount: record.messageCount,
  lastMessageAt: record.lastMessageAt,
  createdAt: record.createdAt,
});

/** The model's view of a conversation (compacted, deleted messages absent) as chat messages: generate calls' history. */
export async function conversationHistory(owned: OwnedConversation): Promise<ChatCompletionMessageParam[]> {
  const checkpoint = owned.record.checkpoint;
  return promptMessages(
    [],
    toHistory(await owned.reads.history()),
    checkpoint?.summary != null ? { ...checkpoint, summary: checkpoint.summary } : null,
  );
}
