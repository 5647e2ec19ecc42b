// Builds the Conversations read models (libs/contexts/conversations/src/conversations.read-model.ts): conversations and their
// messages. Texts stay sealed (the query opens them). Deleting a message or a conversation purges its documents.
import { defineProjector, type EnvelopeOf, type ProjectionContext } from '#eventsourcing';
import type { WriteOp } from '#read-store';
import {
  CONVERSATION_MESSAGES,
  CONVERSATIONS,
  CONVERSATIONS_PROJECTION,
  CONVERSATIONS_READ_MODEL,
  MESSAGES_READ_MODEL,
  USER_MESSAGE_FIELDS,
  type ConversationEvent,
  type ConversationView,
  type MessageView,
} from '#conversations';

const patch = (id: string, set: Partial<ConversationView>): WriteOp => ({
  kind: 'patch',
  collection: CONVERSATIONS,
  id,
  set,
});

const conversation = (context: ProjectionContext, id: string) =>
  context.get<ConversationView>(CONVERSATIONS, id);

/**
 * The message's document, and the conversation's counters with it counted (once, however often replayed: a message
 * already stored by another event is not counted again; one stored by this very event is a replay, whose writes the
 * store's position guard skips where they were applied).
 */
async function messageAdded(
  event: EnvelopeOf<ConversationEvent, 'UserMessagePosted' | 'AssistantMessageRecorded'>,
  context: ProjectionContext,
  message: Omit<MessageView, 'id' | 'conversationId' | 'seq' | 'createdAt'>,
): Promise<WriteOp[]> {
  const { conversationId, messageId } = event.data;
  const current = await conversation(context, conversationId);
  const stored = await context.get<MessageView>(CONVERSATION_MESSAGES, messageId);
  const doc: MessageView = {
    id: messageId,
    conversationId,
    seq: event.revision,
    createdAt: event.metadata.occurredAt,
    ...message,
  };
  const writes: WriteOp[] = [{ kind: 'upsert', collection: CONVERSATION_MESSAGES, doc: { ...doc } }];
  if (current && (stored === null || stored.seq === event.revision))
    writes.push(
      patch(conversationId, {
        messageCount: current.messageCount + 1,
        lastMessageAt: event.metadata.occurredAt,
        updatedAt: event.metadata.occurredAt,
      }),
    );
  return writes;
}

/** Deletes of every message document of a conversation, read page by page in its index's order (seq). */
async function messagesOf(context: ProjectionContext, conversationId: string): Promise<WriteOp[]> {
  const writes: WriteOp[] = [];
  let cursor: string | null = null;
  do {
    const page: { data: MessageView[]; nextCursor: string | null } = await context.find<MessageView>(
      CONVERSATION_MESSAGES,
      { conversationId },
      { sort: { field: 'seq' }, limit: 500, cursor },
    );
    for (const message of page.data)
      writes.push({ kind: 'delete', collection: CONVERSATION_MESSAGES, id: message.id });
    cursor = page.nextCursor;
  } while (cursor);
  return writes;
}

const changed =
  (set: Partial<ConversationView>) =>
  (event: EnvelopeOf<ConversationEvent>): WriteOp[] => [
    patch(event.data.conversationId, { ...set, updatedAt: event.metadata.occurredAt }),
  ];

export const conversationsProjector = defineProjector<ConversationEvent>({
  name: CONVERSATIONS_PROJECTION,
  version: 2,
  collections: [CONVERSATIONS_READ_MODEL, MESSAGES_READ_MODEL],
  on: {
    ConversationStarted: ({ data, metadata }) => {
      const doc: ConversationView = {
        id: data.conversationId,
        agentId: data.agentId,
        userId: data.userId,
        apiKeyId: data.apiKeyId,
        title: data.title,
        visibility: data.visibility,
        archived: false,
        pinned: false,
        messageCount: 0,
        lastMessageAt: null,
        checkpoint: null,
        createdAt: metadata.occurredAt,
        updatedAt: metadata.occurredAt,
      };
      return [{ kind: 'upsert', collection: CONVERSATIONS, doc: { ...doc } }];
    },
    UserMessagePosted: (event, context) =>
      messageAdded(event, context, {
        role: 'user',
        content: event.data.content,
        attachments: event.data.attachments,
        ...USER_MESSAGE_FIELDS,
      }),
    AssistantMessageRecorded: (event, context) =>
      messageAdded(event, context, {
        role: 'assistant',
        content: event.data.content,
        attachments: [],
        citations: event.data.citations,
        status: event.data.status,
        replyTo: event.data.replyTo,
        model: event.data.provenance.model,
        finishReason: event.data.finishReason,
        usage: event.data.usage,
        provenance: event.data.provenance,
      }),
    ConversationCompacted: ({ data, metadata }) => [
      patch(data.conversationId, {
        checkpoint: {
          checkpointId: data.checkpointId,
          throughMessageId: data.throughMessageId,
          throughOffset: data.throughOffset,
          summary: data.summary,
          model: data.model,
        },
        updatedAt: metadata.occurredAt,
      }),
    ],
    CheckpointDiscarded: async ({ data, metadata }, context) => {
      const current = await conversation(context, data.conversationId);
      return current?.checkpoint?.checkpointId === data.checkpointId
        ? [patch(data.conversationId, { checkpoint: null, updatedAt: metadata.occurredAt })]
        : [];
    },
    ConversationRenamed: (event) => changed({ title: event.data.title })(event),
    ConversationArchived: changed({ archived: true }),
    ConversationUnarchived: changed({ archived: false }),
    ConversationPinned: changed({ pinned: true }),
    ConversationUnpinned: changed({ pinned: false }),
    ConversationMadePrivate: changed({ visibility: 'private' }),
    ConversationMadeNormal: changed({ visibility: 'normal' }),
    MessageDeleted: async ({ data, metadata }, context) => {
      const writes: WriteOp[] = [{ kind: 'delete', collection: CONVERSATION_MESSAGES, id: data.messageId }];
      const current = await conversation(context, data.conversationId);
      const stored = await context.get<MessageView>(CONVERSATION_MESSAGES, data.messageId);
      if (current && stored)
        writes.push(
          patch(data.conversationId, {
            messageCount: current.messageCount - 1,
            updatedAt: metadata.occurredAt,
          }),
        );
      return writes;
    },
    ConversationDeleted: async ({ data }, context) => [
      ...(await messagesOf(context, data.conversationId)),
      { kind: 'delete', collection: CONVERSATIONS, id: data.conversationId },
    ],
  },
});
