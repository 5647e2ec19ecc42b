// Which conversation a route may touch: the caller's own, of this Agent (which the caller's key must reach), stored
// or incognito. Any other id (another user's, another Agent's, unknown, deleted, an incognito one forgotten) is the
// same 404, so ids cannot be probed.
import { Inject, Injectable } from '@nestjs/common';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { accessibleAgent, type AgentView } from '#agents';
import type { Caller } from '#identity';
import { READ_STORE, type ReadStore } from '#read-store';
import { ConversationNotFoundError } from './conversation.decider.js';
import type { ConversationRecord } from './conversation-records.js';
import { IncognitoConversations, type IncognitoConversation } from './incognito-conversations.js';
import { StoredConversations } from './stored-conversations.js';
import { promptMessages, toHistory } from './runtime/turn-prompt.js';

export type OwnedConversation =
  | { readonly kind: 'stored'; readonly agent: AgentView; readonly record: ConversationRecord }
  | {
      readonly kind: 'incognito';
      readonly agent: AgentView;
      readonly record: ConversationRecord;
      readonly live: IncognitoConversation;
    };

@Injectable()
export class ConversationDirectory {
  constructor(
    readonly stored: StoredConversations,
    readonly incognito: IncognitoConversations,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
  ) {}

  agent(agentId: string, caller: Caller): Promise<AgentView> {
    return accessibleAgent(this.readStore, agentId, caller);
  }

  async owned(agentId: string, conversationId: string, caller: Caller): Promise<OwnedConversation> {
    const agent = await this.agent(agentId, caller);
    const live = this.incognito.find(conversationId, caller.userId, agent.id);
    if (live) return { kind: 'incognito', agent, record: live.record, live };
    const record = await this.stored.find(conversationId, caller.userId, agent.id);
    if (!record) throw new ConversationNotFoundError(conversationId);
    return { kind: 'stored', agent, record };
  }
}

/** A conversation as the routes answer it. */
export const toConversationDto = (record: ConversationRecord) => ({
  id: record.id,
  agentId: record.agentId,
  title: record.title,
  visibility: record.visibility,
  archived: record.archived,
  messageCount: record.messageCount,
  lastMessageAt: record.lastMessageAt,
  createdAt: record.createdAt,
});

/** The model's view of a conversation (compacted, deleted messages absent) as chat messages: generate calls' history. */
export async function conversationHistory(
  directory: ConversationDirectory,
  owned: OwnedConversation,
): Promise<ChatCompletionMessageParam[]> {
  const checkpoint = owned.record.checkpoint;
  // A compacted conversation is read from its checkpoint's message on: what the summary covers is never opened.
  const messages =
    owned.kind === 'stored'
      ? await directory.stored.history(
          owned.record.id,
          checkpoint?.summary != null ? checkpoint.throughMessageId : null,
        )
      : owned.live.messages;
  return promptMessages(
    [],
    toHistory(messages),
    checkpoint?.summary != null ? { ...checkpoint, summary: checkpoint.summary } : null,
  );
}
