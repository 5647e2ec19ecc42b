import { projectionHarness } from '#testing/projection-harness';
import {
  CONVERSATION_MESSAGES,
  CONVERSATIONS,
  type ConversationView,
  type MessageView,
} from '#conversations';
import { conversationsProjector } from './conversations.projector.js';

const started = {
  type: 'ConversationStarted',
  data: {
    conversationId: 'c1',
    agentId: 'a1',
    userId: 'u1',
    apiKeyId: 'k1',
    visibility: 'normal',
    title: 'sealed-title',
  },
};
const posted = (messageId: string) => ({
  type: 'UserMessagePosted',
  data: {
    conversationId: 'c1',
    messageId,
    content: `sealed-${messageId}`,
    attachments: [
      { documentId: null, name: 'sealed-name', mimeType: 'text/plain', sizeBytes: 3, text: 'sealed-text' },
    ],
  },
});
const provenance = {
  model: 'offline-chat',
  provider: 'offline',
  sampling: { temperature: 0.2, topP: null, topK: null },
  agentRevision: 3,
  systemPromptSha256: 'abc',
  sources: [],
  toolCalls: [],
  steps: 1,
  checkpointId: null,
  contextProviders: ['knowledge'],
};
const usage = { inputTokens: 10, cachedInputTokens: 0, outputTokens: 5 };
const answered = (messageId: string, replyTo: string, status = 'complete') => ({
  type: 'AssistantMessageRecorded',
  data: {
    conversationId: 'c1',
    messageId,
    replyTo,
    content: `sealed-${messageId}`,
    citations: [],
    status,
    finishReason: 'stop',
    usage,
    provenance,
  },
});
const compacted = (checkpointId: string, throughMessageId: string) => ({
  type: 'ConversationCompacted',
  data: {
    conversationId: 'c1',
    checkpointId,
    throughMessageId,
    throughOffset: 2,
    summary: `sealed-${checkpointId}`,
    tokensBefore: 1000,
    tokensAfter: 100,
    model: 'offline-chat',
  },
});
const only = (type: string) => ({ type, data: { conversationId: 'c1' } });

describe('conversations projection', () => {
  it('builds the conversation document from ConversationStarted', async () => {
    const h = await projectionHarness(conversationsProjector);
    const e1 = h.envelope(started);
    await h.apply(e1);
    expect(await h.get<ConversationView>(CONVERSATIONS, 'c1')).toEqual({
      id: 'c1',
      agentId: 'a1',
      userId: 'u1',
      apiKeyId: 'k1',
      title: 'sealed-title',
      visibility: 'normal',
      archived: false,
      pinned: false,
      headId: null,
      branched: false,
      messageCount: 0,
      lastMessageAt: null,
      checkpoint: null,
      createdAt: e1.metadata.occurredAt,
      updatedAt: e1.metadata.occurredAt,
    });
  });

  it('adds a document per message (seq = the event revision) and counts them on the conversation', async () => {
    const h = await projectionHarness(conversationsProjector);
    const e1 = h.envelope(started);
    const e2 = h.envelope(posted('m1'));
    const e3 = h.envelope(answered('m2', 'm1'));
    await h.apply(e1, e2);
    await h.apply(e3);
    expect(await h.get<MessageView>(CONVERSATION_MESSAGES, 'm1')).toEqual({
      id: 'm1',
      conversationId: 'c1',
      seq: e2.revision,
      createdAt: e2.metadata.occurredAt,
      role: 'user',
      content: 'sealed-m1',
      attachments: posted('m1').data.attachments,
      citations: [],
      status: 'complete',
      replyTo: null,
      parentId: null,
      model: null,
      finishReason: null,
      usage: null,
      provenance: null,
    });
    expect(await h.get<MessageView>(CONVERSATION_MESSAGES, 'm2')).toEqual({
      id: 'm2',
      conversationId: 'c1',
      seq: e3.revision,
      createdAt: e3.metadata.occurredAt,
      role: 'assistant',
      content: 'sealed-m2',
      attachments: [],
      citations: [],
      status: 'complete',
      replyTo: 'm1',
      parentId: 'm1',
      model: 'offline-chat',
      finishReason: 'stop',
      usage,
      provenance,
    });
    expect(e3.revision).toBeGreaterThan(e2.revision);
    expect(await h.get<ConversationView>(CONVERSATIONS, 'c1')).toMatchObject({
      messageCount: 2,
      lastMessageAt: e3.metadata.occurredAt,
      updatedAt: e3.metadata.occurredAt,
      createdAt: e1.metadata.occurredAt,
    });
  });

  it('keeps an incomplete answer incomplete', async () => {
    const h = await projectionHarness(conversationsProjector);
    await h.apply(
      h.envelope(started),
      h.envelope(posted('m1')),
      h.envelope(answered('m2', 'm1', 'incomplete')),
    );
    expect(await h.get<MessageView>(CONVERSATION_MESSAGES, 'm2')).toMatchObject({ status: 'incomplete' });
  });

  it('applying the same events twice changes nothing', async () => {
    const h = await projectionHarness(conversationsProjector);
    const events = [
      h.envelope(started),
      h.envelope(posted('m1')),
      h.envelope(answered('m2', 'm1')),
      h.envelope(compacted('cp1', 'm2')),
      h.envelope(posted('m3')),
      h.envelope({ type: 'MessageDeleted', data: { conversationId: 'c1', messageId: 'm1' } }),
      h.envelope(only('ConversationArchived')),
    ];
    await h.apply(...events);
    const conversation = await h.get(CONVERSATIONS, 'c1');
    const messages = await Promise.all(['m2', 'm3'].map((id) => h.get(CONVERSATION_MESSAGES, id)));
    await h.apply(...events);
    for (const event of events) await h.apply(event);
    expect(await h.get(CONVERSATIONS, 'c1')).toEqual(conversation);
    expect(await Promise.all(['m2', 'm3'].map((id) => h.get(CONVERSATION_MESSAGES, id)))).toEqual(messages);
    expect(await h.get(CONVERSATION_MESSAGES, 'm1')).toBeNull();
    expect(await h.count(CONVERSATION_MESSAGES)).toBe(2);
    expect(conversation).toMatchObject({ messageCount: 2, archived: true });
    expect(conversation).not.toHaveProperty('messageIds');
  });

  it('keeps the checkpoint of a compaction, and CheckpointDiscarded clears only its own', async () => {
    const h = await projectionHarness(conversationsProjector);
    await h.apply(h.envelope(started), h.envelope(posted('m1')), h.envelope(compacted('cp1', 'm1')));
    expect(await h.get<ConversationView>(CONVERSATIONS, 'c1')).toMatchObject({
      checkpoint: {
        checkpointId: 'cp1',
        throughMessageId: 'm1',
        throughOffset: 2,
        summary: 'sealed-cp1',
        model: 'offline-chat',
      },
    });
    const discard = (checkpointId: string) => ({
      type: 'CheckpointDiscarded',
      data: { conversationId: 'c1', checkpointId, reason: 'message_deleted' },
    });
    await h.apply(h.envelope(discard('cp-other')));
    expect((await h.get<ConversationView>(CONVERSATIONS, 'c1'))?.checkpoint?.checkpointId).toBe('cp1');
    const e = h.envelope(discard('cp1'));
    await h.apply(e);
    expect(await h.get<ConversationView>(CONVERSATIONS, 'c1')).toMatchObject({
      checkpoint: null,
      updatedAt: e.metadata.occurredAt,
    });
  });

  it('renames, archives, unarchives, pins, unpins and changes visibility', async () => {
    const h = await projectionHarness(conversationsProjector);
    await h.apply(
      h.envelope(started),
      h.envelope({ type: 'ConversationRenamed', data: { conversationId: 'c1', title: 'sealed-new' } }),
      h.envelope(only('ConversationArchived')),
      h.envelope(only('ConversationPinned')),
      h.envelope(only('ConversationMadePrivate')),
    );
    expect(await h.get<ConversationView>(CONVERSATIONS, 'c1')).toMatchObject({
      title: 'sealed-new',
      archived: true,
      pinned: true,
      visibility: 'private',
    });
    const last = h.envelope(only('ConversationMadeNormal'));
    await h.apply(h.envelope(only('ConversationUnarchived')), h.envelope(only('ConversationUnpinned')), last);
    expect(await h.get<ConversationView>(CONVERSATIONS, 'c1')).toMatchObject({
      title: 'sealed-new',
      archived: false,
      pinned: false,
      visibility: 'normal',
      updatedAt: last.metadata.occurredAt,
    });
  });

  it('removes a deleted message and its count', async () => {
    const h = await projectionHarness(conversationsProjector);
    await h.apply(h.envelope(started), h.envelope(posted('m1')), h.envelope(answered('m2', 'm1')));
    const del = h.envelope({ type: 'MessageDeleted', data: { conversationId: 'c1', messageId: 'm1' } });
    await h.apply(del);
    await h.apply(del);
    expect(await h.get(CONVERSATION_MESSAGES, 'm1')).toBeNull();
    expect(await h.get(CONVERSATION_MESSAGES, 'm2')).not.toBeNull();
    expect(await h.get<ConversationView>(CONVERSATIONS, 'c1')).toMatchObject({
      messageCount: 1,
      updatedAt: del.metadata.occurredAt,
    });
  });

  it('removes a deleted conversation with every message document, and a replay keeps it deleted', async () => {
    const h = await projectionHarness(conversationsProjector);
    const events = [
      h.envelope(started),
      h.envelope(posted('m1')),
      h.envelope(answered('m2', 'm1')),
      h.envelope(posted('m3')),
      h.envelope({ type: 'MessageDeleted', data: { conversationId: 'c1', messageId: 'm3' } }),
      h.envelope({ type: 'ConversationDeleted', data: { conversationId: 'c1', reason: 'requested' } }),
    ];
    await h.apply(...events);
    expect(await h.get(CONVERSATIONS, 'c1')).toBeNull();
    expect(await h.count(CONVERSATIONS)).toBe(0);
    expect(await h.count(CONVERSATION_MESSAGES)).toBe(0);
    await h.apply(...events);
    for (const event of events) await h.apply(event);
    expect(await h.count(CONVERSATIONS)).toBe(0);
    expect(await h.count(CONVERSATION_MESSAGES)).toBe(0);
  });

  it('holds no list of messages: a long conversation is written and purged like a short one', async () => {
    const h = await projectionHarness(conversationsProjector);
    await h.apply(h.envelope(started));
    const ids = Array.from({ length: 1200 }, (_, i) => `m${i}`);
    for (let start = 0; start < ids.length; start += 400)
      await h.apply(...ids.slice(start, start + 400).map((id) => h.envelope(posted(id))));
    const conversation = await h.get<ConversationView>(CONVERSATIONS, 'c1');
    expect(conversation).toMatchObject({ messageCount: 1200 });
    expect(Object.values(conversation!).some(Array.isArray)).toBe(false);
    expect(await h.count(CONVERSATION_MESSAGES)).toBe(1200);

    // Purged page by page (past one page of 500), with a message posted in the same batch.
    await h.apply(
      h.envelope(posted('last')),
      h.envelope({ type: 'ConversationDeleted', data: { conversationId: 'c1', reason: 'requested' } }),
    );
    expect(await h.count(CONVERSATION_MESSAGES)).toBe(0);
    expect(await h.count(CONVERSATIONS)).toBe(0);
  });

  it("keeps the tree of branches: each message under its parent, the head, and a deleted one's children", async () => {
    const h = await projectionHarness(conversationsProjector);
    const branch = (messageId: string, parentId: string | null) => {
      const event = posted(messageId);
      return { ...event, data: { ...event.data, parentId } };
    };
    const parentOf = async (id: string) => (await h.get<MessageView>(CONVERSATION_MESSAGES, id))?.parentId;
    const conversation = () => h.get<ConversationView>(CONVERSATIONS, 'c1');
    // Recorded before branches (no parentId): each question follows the head.
    await h.apply(
      ...[started, posted('q1'), answered('a1', 'q1'), posted('q2'), answered('a2', 'q2')].map((event) =>
        h.envelope(event),
      ),
    );
    expect(await parentOf('q2')).toBe('a1');
    expect(await conversation()).toMatchObject({ headId: 'a2', branched: false });

    await h.apply(h.envelope(branch('q2b', 'a1')), h.envelope(answered('a2b', 'q2b')));
    expect(await parentOf('q2b')).toBe('a1');
    expect(await conversation()).toMatchObject({ headId: 'a2b', branched: true });

    await h.apply(h.envelope({ type: 'BranchSwitched', data: { conversationId: 'c1', headId: 'a2' } }));
    expect(await conversation()).toMatchObject({ headId: 'a2' });

    await h.apply(h.envelope({ type: 'MessageDeleted', data: { conversationId: 'c1', messageId: 'a1' } }));
    expect([await parentOf('q2'), await parentOf('q2b')]).toEqual(['q1', 'q1']);
    await h.apply(h.envelope({ type: 'MessageDeleted', data: { conversationId: 'c1', messageId: 'a2' } }));
    expect(await conversation()).toMatchObject({ headId: 'q2', messageCount: 4 });
  });
});
