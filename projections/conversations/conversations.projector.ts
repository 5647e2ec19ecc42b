// Builds the Conversations read models (libs/contexts/conversations/src/conversations.read-model.ts): conversations and their
// messages. Texts stay sealed (the query opens them). Deleting a message or a conversation purges its documents.
// Messages form a tree (conversation-tree.ts): each document names its parent, the conversation its head, and a
// deleted message's children follow its parent, as the Conversation aggregate's state does.
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
  answerMovesHead,
  TOOL_CALL_EVENTS_NOT_READ,
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
  message: Omit<MessageView, 'id' | 'conversationId' | 'seq' | 'createdAt' | 'parentId'>,
): Promise<WriteOp[]> {
  const { conversationId, messageId } = event.data;
  const current = await conversation(context, conversationId);
  const headId = current?.headId ?? null;
  // A question follows the head unless it starts a branch; an answer follows its question and moves the head only
  // when the head was its question (its user may have switched away while it was written).
  const parentId =
    event.type === 'AssistantMessageRecorded'
      ? event.data.replyTo
      : event.data.parentId === undefined
        ? headId
        : event.data.parentId;
  // The head's own parent matters only to an answer whose question is not the head (a retried turn's second
  // answer): only then is the head's document read.
  const headParent =
    event.type === 'AssistantMessageRecorded' && headId !== null && headId !== event.data.replyTo
      ? ((await context.get<MessageView>(CONVERSATION_MESSAGES, headId))?.parentId ?? null)
      : null;
  const movesHead =
    event.type === 'UserMessagePosted' || answerMovesHead(headId, event.data.replyTo, () => headParent);
  const stored = await context.get<MessageView>(CONVERSATION_MESSAGES, messageId);
  const doc: MessageView = {
    id: messageId,
    conversationId,
    seq: event.revision,
    createdAt: event.metadata.occurredAt,
    parentId,
    ...message,
  };
  const writes: WriteOp[] = [{ kind: 'upsert', collection: CONVERSATION_MESSAGES, doc: { ...doc } }];
  if (current && (stored === null || stored.seq === event.revision))
    writes.push(
      patch(conversationId, {
        messageCount: current.messageCount + 1,
        lastMessageAt: event.metadata.occurredAt,
        updatedAt: event.metadata.occurredAt,
        ...(movesHead ? { headId: messageId } : {}),
        // Another answer to a question (a retried turn's) is listed after the first, as before branches.
        ...(event.type === 'UserMessagePosted' && parentId !== headId ? { branched: true } : {}),
      }),
    );
  return writes;
}

/** Every message document of a conversation, read page by page in its index's order (seq). */
async function eachMessage(
  context: ProjectionContext,
  conversationId: string,
  filter: Record<string, string>,
  visit: (message: MessageView) => void,
): Promise<void> {
  let cursor: string | null = null;
  do {
    const page: { data: MessageView[]; nextCursor: string | null } = await context.find<MessageView>(
      CONVERSATION_MESSAGES,
      { conversationId, ...filter },
      { sort: { field: 'seq' }, limit: 500, cursor },
    );
    page.data.forEach(visit);
    cursor = page.nextCursor;
  } while (cursor);
}

/** The deleted message's children, handed to its parent. */
async function childrenHandedOn(context: ProjectionContext, deleted: MessageView): Promise<WriteOp[]> {
  const writes: WriteOp[] = [];
  await eachMessage(context, deleted.conversationId, { parentId: deleted.id }, (child) =>
    writes.push({
      kind: 'patch',
      collection: CONVERSATION_MESSAGES,
      id: child.id,
      set: { parentId: deleted.parentId },
    }),
  );
  return writes;
}

/** Deletes of every message document of a conversation. */
async function messagesOf(context: ProjectionContext, conversationId: string): Promise<WriteOp[]> {
  const writes: WriteOp[] = [];
  await eachMessage(context, conversationId, {}, (message) =>
    writes.push({ kind: 'delete', collection: CONVERSATION_MESSAGES, id: message.id }),
  );
  return writes;
}

const changed =
  <Event extends EnvelopeOf<ConversationEvent>>(
    set: Partial<ConversationView>,
    from: (event: Event) => Partial<ConversationView> = () => ({}),
  ) =>
  (event: Event): WriteOp[] => [
    patch(event.data.conversationId, { ...set, ...from(event), updatedAt: event.metadata.occurredAt }),
  ];

export const conversationsProjector = defineProjector<ConversationEvent>({
  name: CONVERSATIONS_PROJECTION,
  version: 3,
  collections: [CONVERSATIONS_READ_MODEL, MESSAGES_READ_MODEL],
  on: {
    ...TOOL_CALL_EVENTS_NOT_READ,
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
        headId: null,
        branched: false,
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
    BranchSwitched: changed({ branched: true }, ({ data }) => ({ headId: data.headId })),
    MessageDeleted: async ({ data, metadata }, context) => {
      const writes: WriteOp[] = [{ kind: 'delete', collection: CONVERSATION_MESSAGES, id: data.messageId }];
      const current = await conversation(context, data.conversationId);
      const stored = await context.get<MessageView>(CONVERSATION_MESSAGES, data.messageId);
      if (current && stored)
        writes.push(
          ...(await childrenHandedOn(context, stored)),
          patch(data.conversationId, {
            messageCount: current.messageCount - 1,
            updatedAt: metadata.occurredAt,
            ...(current.headId === data.messageId ? { headId: stored.parentId } : {}),
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
