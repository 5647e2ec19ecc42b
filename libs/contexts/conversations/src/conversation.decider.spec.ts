import {
  ConversationNotFoundError,
  conversationDecider,
  type ConversationCommand,
} from './conversation.decider.js';
import {
  evolveConversation,
  initialConversationState,
  type ConversationEvent,
  type ConversationState,
} from './conversation.events.js';
import { MessageTree } from './message-tree.js';
import { deciderSpec } from '#testing/decider-spec';

const given = deciderSpec(conversationDecider);

const started: ConversationEvent = {
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
/** A posted question; its parent named as the decider records it now (absent: as recorded before branches). */
const posted = (messageId: string, parentId?: string | null): ConversationEvent => ({
  type: 'UserMessagePosted',
  data: {
    conversationId: 'c1',
    messageId,
    content: `sealed-${messageId}`,
    attachments: [],
    ...(parentId !== undefined ? { parentId } : {}),
  },
});

const answer = (messageId: string, replyTo: string) => ({
  messageId,
  replyTo,
  content: `sealed-${messageId}`,
  citations: [],
  status: 'complete' as const,
  finishReason: 'stop',
  usage: { inputTokens: 10, cachedInputTokens: 0, outputTokens: 5 },
  provenance: {
    model: 'offline-chat',
    provider: 'offline',
    sampling: { temperature: null, topP: null, topK: null },
    agentRevision: 0,
    systemPromptSha256: 'abc',
    sources: [],
    toolCalls: [],
    steps: 1,
    checkpointId: null,
    contextProviders: [],
  },
});
const answered = (messageId: string, replyTo: string): ConversationEvent => ({
  type: 'AssistantMessageRecorded',
  data: { conversationId: 'c1', ...answer(messageId, replyTo) },
});
const recordAnswer = (messageId: string, replyTo: string): ConversationCommand => ({
  type: 'RecordAnswer',
  conversationId: 'c1',
  answer: answer(messageId, replyTo),
});

const checkpoint = (checkpointId: string, throughMessageId: string) => ({
  checkpointId,
  throughMessageId,
  throughOffset: 2,
  summary: `sealed-${checkpointId}`,
  tokensBefore: 1000,
  tokensAfter: 100,
  model: 'offline-chat',
});
const compacted = (checkpointId: string, throughMessageId: string): ConversationEvent => ({
  type: 'ConversationCompacted',
  data: { conversationId: 'c1', ...checkpoint(checkpointId, throughMessageId) },
});

const turn = (overrides: Partial<ConversationCommand & { type: 'StartTurn' }> = {}): ConversationCommand => ({
  type: 'StartTurn',
  conversationId: 'c1',
  userId: 'u1',
  agentId: 'a1',
  start: null,
  messageId: 'm1',
  content: 'sealed-m1',
  attachments: [],
  ...overrides,
});
const firstTurn = turn({ start: { apiKeyId: 'k1', visibility: 'normal', title: 'sealed-title' } });

const deleted: ConversationEvent = {
  type: 'ConversationDeleted',
  data: { conversationId: 'c1', reason: 'requested' },
};
const change = (
  settings: Omit<ConversationCommand & { type: 'ChangeConversation' }, 'type' | 'conversationId' | 'userId'>,
  userId = 'u1',
): ConversationCommand => ({ type: 'ChangeConversation', conversationId: 'c1', userId, ...settings });

describe('Conversation decider', () => {
  describe('StartTurn', () => {
    it('starts the conversation and posts the first message on an absent stream', () =>
      given()
        .when(firstTurn)
        .then([started, posted('m1', null)]));

    it('posts the next message of a started conversation', () =>
      given(started, posted('m1'))
        .when(turn({ messageId: 'm2', content: 'sealed-m2' }))
        .then([posted('m2', 'm1')]));

    it('posts nothing when the turn is retried with the same messageId (with or without start)', () => {
      given(started, posted('m1')).when(firstTurn).then([]);
      given(started, posted('m1')).when(turn()).then([]);
    });

    it('continues a conversation a retried first turn finds started, with a new message', () =>
      given(started)
        .when({ ...firstTurn, messageId: 'm2', content: 'sealed-m2' } as ConversationCommand)
        .then([posted('m2', null)]));

    it('is "not found" for another user, another Agent or a deleted conversation', () => {
      given(started)
        .when(turn({ userId: 'u2' }))
        .thenThrows('conversation_not_found');
      given(started)
        .when(turn({ agentId: 'a2' }))
        .thenThrows('conversation_not_found');
      given(started)
        .when({ ...firstTurn, userId: 'u2' } as ConversationCommand)
        .thenThrows('conversation_not_found');
      given(started, posted('m1'), deleted)
        .when(turn({ messageId: 'm2' }))
        .thenThrows('conversation_not_found');
      given(started, deleted).when(firstTurn).thenThrows('conversation_not_found');
      given().when(turn()).thenThrows('conversation_not_found');
    });

    it('fails with a not_found error (404 over HTTP) coded conversation_not_found', () => {
      const state = [started].reduce(conversationDecider.evolve, conversationDecider.initialState());
      let error: unknown;
      try {
        conversationDecider.decide(turn({ userId: 'u2' }), state);
      } catch (thrown) {
        error = thrown;
      }
      expect(error).toBeInstanceOf(ConversationNotFoundError);
      expect(error).toMatchObject({
        kind: 'not_found',
        code: 'conversation_not_found',
        param: 'conversationId',
      });
    });
  });

  describe('branches', () => {
    const state = (...events: ConversationEvent[]) =>
      events.reduce(conversationDecider.evolve, conversationDecider.initialState()) as Extract<
        ConversationState,
        { status: 'active' | 'deleted' }
      >;
    const switchTo = (messageId: string, userId = 'u1'): ConversationCommand => ({
      type: 'SwitchBranch',
      conversationId: 'c1',
      userId,
      messageId,
    });
    const history = [started, posted('q1'), answered('a1', 'q1'), posted('q2'), answered('a2', 'q2')];

    it('posts a question after an earlier message as a branch, the earlier one kept', () => {
      given(...history)
        .when(turn({ messageId: 'q2b', content: 'sealed-q2b', parentId: 'a1' }))
        .then([posted('q2b', 'a1')]);
      given(...history)
        .when(turn({ messageId: 'q1b', content: 'sealed-q1b', parentId: null }))
        .then([posted('q1b', null)]);
    });

    it('refuses a branch after a message the conversation does not hold', () => {
      given(...history)
        .when(turn({ messageId: 'q3', parentId: 'elsewhere' }))
        .thenThrows('message_not_found');
      given()
        .when({ ...firstTurn, parentId: 'a1' } as ConversationCommand)
        .thenThrows('message_not_found');
    });

    it('keeps each message under its parent and the head at the newest message of the branch continued', () => {
      const branched = state(...history, posted('q2b', 'a1'), answered('a2b', 'q2b'));
      expect(branched.headId).toBe('a2b');
      expect(branched.messages.parentOf('q2b')).toBe('a1');
      expect(branched.messages.parentOf('q2')).toBe('a1');
      expect(branched.messages.parentOf('q1')).toBeNull();
      // An answer to a question its user switched away from does not move the head.
      const away = state(...history, posted('q3'), {
        type: 'BranchSwitched',
        data: { conversationId: 'c1', headId: 'a2' },
      });
      expect(evolveConversation(away, answered('a3', 'q3'))).toMatchObject({ headId: 'a2' });
      // A retried turn's second answer to its question follows the first attempt as the head.
      expect(state(...history, answered('a2again', 'q2')).headId).toBe('a2again');
    });

    it('switches to the newest message under the one named, and records nothing when already there', () => {
      const branched = [...history, posted('q2b', 'a1'), answered('a2b', 'q2b')];
      given(...branched)
        .when(switchTo('q2'))
        .then([{ type: 'BranchSwitched', data: { conversationId: 'c1', headId: 'a2' } }]);
      const switched: ConversationEvent = {
        type: 'BranchSwitched',
        data: { conversationId: 'c1', headId: 'a2' },
      };
      given(...branched, switched)
        .when(switchTo('a1'))
        .then([{ type: 'BranchSwitched', data: { conversationId: 'c1', headId: 'a2b' } }]);
      given(...branched)
        .when(switchTo('q2b'))
        .then([]);
      given(...branched)
        .when(switchTo('nope'))
        .thenThrows('message_not_found');
      given(...branched)
        .when(switchTo('q2', 'u2'))
        .thenThrows('conversation_not_found');
    });

    it("hands a deleted message's children to its parent and moves a deleted head to its parent", () => {
      const deletedMessage = (messageId: string): ConversationEvent => ({
        type: 'MessageDeleted',
        data: { conversationId: 'c1', messageId },
      });
      const middle = state(...history, deletedMessage('a1'));
      expect(middle.messages.parentOf('q2')).toBe('q1');
      expect(middle.headId).toBe('a2');
      const last = state(...history, deletedMessage('a2'));
      expect(last.headId).toBe('q2');
      expect(last.messages.has('a2')).toBe(false);
    });
  });

  describe('RecordAnswer', () => {
    it('records the answer to a posted message', () =>
      given(started, posted('m1'))
        .when(recordAnswer('m2', 'm1'))
        .then([answered('m2', 'm1')]));

    it('records nothing when the replied message or the conversation was deleted meanwhile', () => {
      const messageDeleted: ConversationEvent = {
        type: 'MessageDeleted',
        data: { conversationId: 'c1', messageId: 'm1' },
      };
      given(started, posted('m1'), messageDeleted).when(recordAnswer('m2', 'm1')).then([]);
      given(started, posted('m1'), deleted).when(recordAnswer('m2', 'm1')).then([]);
      given().when(recordAnswer('m2', 'm1')).then([]);
    });

    it('records nothing the second time', () =>
      given(started, posted('m1'), answered('m2', 'm1')).when(recordAnswer('m2', 'm1')).then([]));
  });

  describe('CompactConversation', () => {
    const compact = (checkpointId: string, through: string): ConversationCommand => ({
      type: 'CompactConversation',
      conversationId: 'c1',
      checkpoint: checkpoint(checkpointId, through),
    });

    it('records a checkpoint through a known message', () =>
      given(started, posted('m1'), answered('m2', 'm1'))
        .when(compact('cp1', 'm2'))
        .then([compacted('cp1', 'm2')]));

    it('records nothing for an unknown message or the same checkpoint twice', () => {
      given(started, posted('m1')).when(compact('cp1', 'nope')).then([]);
      given(started, posted('m1'), compacted('cp1', 'm1')).when(compact('cp1', 'm1')).then([]);
      given(started, posted('m1'), deleted).when(compact('cp1', 'm1')).then([]);
    });
  });

  describe('ChangeConversation', () => {
    it('renames', () =>
      given(started)
        .when(change({ title: 'sealed-new' }))
        .then([{ type: 'ConversationRenamed', data: { conversationId: 'c1', title: 'sealed-new' } }]));

    it.each([
      ['archived', 'ConversationArchived', 'ConversationUnarchived'],
      ['pinned', 'ConversationPinned', 'ConversationUnpinned'],
    ] as const)('%s: on and off only when it changes', (flag, on, off) => {
      const conversationId = 'c1';
      given(started)
        .when(change({ [flag]: true }))
        .then([{ type: on, data: { conversationId } }]);
      given(started)
        .when(change({ [flag]: false }))
        .then([]);
      const turnedOn: ConversationEvent = { type: on, data: { conversationId } };
      given(started, turnedOn)
        .when(change({ [flag]: true }))
        .then([]);
      given(started, turnedOn)
        .when(change({ [flag]: false }))
        .then([{ type: off, data: { conversationId } }]);
    });

    it('makes private and normal only when it changes', () => {
      given(started)
        .when(change({ visibility: 'private' }))
        .then([{ type: 'ConversationMadePrivate', data: { conversationId: 'c1' } }]);
      given(started)
        .when(change({ visibility: 'normal' }))
        .then([]);
      const madePrivate: ConversationEvent = {
        type: 'ConversationMadePrivate',
        data: { conversationId: 'c1' },
      };
      given(started, madePrivate)
        .when(change({ visibility: 'private' }))
        .then([]);
      given(started, madePrivate)
        .when(change({ visibility: 'normal' }))
        .then([{ type: 'ConversationMadeNormal', data: { conversationId: 'c1' } }]);
    });

    it('records one fact per change, and nothing for an empty change', () => {
      given(started)
        .when(change({ title: 't', archived: true, visibility: 'private' }))
        .then([
          { type: 'ConversationRenamed', data: { conversationId: 'c1', title: 't' } },
          { type: 'ConversationArchived', data: { conversationId: 'c1' } },
          { type: 'ConversationMadePrivate', data: { conversationId: 'c1' } },
        ]);
      given(started).when(change({})).then([]);
    });

    it('is "not found" for another user and on a deleted conversation', () => {
      given(started)
        .when(change({ title: 't' }, 'u2'))
        .thenThrows('conversation_not_found');
      given(started, deleted)
        .when(change({ title: 't' }))
        .thenThrows('conversation_not_found');
    });
  });

  describe('DeleteMessage', () => {
    const deleteMessage = (messageId: string, userId = 'u1'): ConversationCommand => ({
      type: 'DeleteMessage',
      conversationId: 'c1',
      userId,
      messageId,
    });
    const messageDeleted = (messageId: string): ConversationEvent => ({
      type: 'MessageDeleted',
      data: { conversationId: 'c1', messageId },
    });
    const discarded: ConversationEvent = {
      type: 'CheckpointDiscarded',
      data: { conversationId: 'c1', checkpointId: 'cp1', reason: 'message_deleted' },
    };
    const history = [started, posted('m1'), answered('m2', 'm1'), posted('m3'), answered('m4', 'm3')];

    it('deletes a message', () =>
      given(...history)
        .when(deleteMessage('m3'))
        .then([messageDeleted('m3')]));

    it('discards the checkpoint when the message is at or before its throughMessageId', () => {
      given(...history, compacted('cp1', 'm2'))
        .when(deleteMessage('m1'))
        .then([messageDeleted('m1'), discarded]);
      given(...history, compacted('cp1', 'm2'))
        .when(deleteMessage('m2'))
        .then([messageDeleted('m2'), discarded]);
    });

    it('keeps the checkpoint when the message comes after it', () =>
      given(...history, compacted('cp1', 'm2'))
        .when(deleteMessage('m3'))
        .then([messageDeleted('m3')]));

    it('keeps nothing to discard once the checkpoint was discarded', () =>
      given(...history, compacted('cp1', 'm2'), messageDeleted('m1'), discarded)
        .when(deleteMessage('m2'))
        .then([messageDeleted('m2')]));

    it('refuses an unknown or already deleted message, and is "not found" for another user', () => {
      given(...history)
        .when(deleteMessage('nope'))
        .thenThrows('message_not_found');
      given(...history, messageDeleted('m1'))
        .when(deleteMessage('m1'))
        .thenThrows('message_not_found');
      given(...history)
        .when(deleteMessage('m1', 'u2'))
        .thenThrows('conversation_not_found');
    });
  });

  describe('DeleteConversation', () => {
    const del = (userId: string | null, reason: 'requested' | 'agent_deleted' = 'requested') =>
      ({ type: 'DeleteConversation', conversationId: 'c1', userId, reason }) as ConversationCommand;

    it('deletes for its user', () => given(started, posted('m1')).when(del('u1')).then([deleted]));

    it('deletes for the platform (no user), and does nothing on a deleted or unknown conversation', () => {
      given(started)
        .when(del(null, 'agent_deleted'))
        .then([{ type: 'ConversationDeleted', data: { conversationId: 'c1', reason: 'agent_deleted' } }]);
      given(started, deleted).when(del(null, 'agent_deleted')).then([]);
      given().when(del(null, 'agent_deleted')).then([]);
    });

    it('is "not found" for another user, and for its user once deleted', () => {
      given(started).when(del('u2')).thenThrows('conversation_not_found');
      given(started, deleted).when(del('u1')).thenThrows('conversation_not_found');
    });
  });

  describe("a long conversation's look-ups (messages that each append shares)", () => {
    const many = Array.from({ length: 40 }, (_, i) => posted(`m${i}`));
    const fold = (state: ConversationState, ...events: ConversationEvent[]) =>
      events.reduce(evolveConversation, state);
    const tree = (state: ConversationState) =>
      state.status === 'absent' ? MessageTree.empty() : state.messages;
    const removed: ConversationEvent = {
      type: 'MessageDeleted',
      data: { conversationId: 'c1', messageId: 'm5' },
    };

    it('finds exactly the live messages of each state, after appends, a branch and a deletion', () => {
      const state = fold(initialConversationState(), started, ...many);
      expect(tree(state).has('m39')).toBe(true);
      expect(tree(state).has('m40')).toBe(false);
      const next = fold(state, posted('m40'));
      expect(tree(next).has('m40')).toBe(true);
      // The shorter state still answers for itself, and a branch from it sees its own append only.
      expect(tree(state).has('m40')).toBe(false);
      const branch = fold(state, posted('x'));
      expect(tree(branch).has('x')).toBe(true);
      expect(tree(branch).has('m40')).toBe(false);
      expect(tree(next).has('x')).toBe(false);
      const afterDelete = fold(next, removed);
      expect(tree(afterDelete).has('m5')).toBe(false);
      expect(tree(afterDelete).has('m40')).toBe(true);
      expect(tree(next).has('m5')).toBe(true);
    });

    it('decides as in a short one: retried turns and answers post nothing, a deleted message takes no answer', () => {
      given(started, ...many)
        .when(turn({ messageId: 'm39' }))
        .then([]);
      given(started, ...many)
        .when(turn({ messageId: 'm40', content: 'sealed-m40' }))
        .then([posted('m40', 'm39')]);
      given(started, ...many, answered('a1', 'm39'))
        .when(recordAnswer('a1', 'm39'))
        .then([]);
      given(started, ...many, removed)
        .when(recordAnswer('a2', 'm5'))
        .then([]);
      given(started, ...many)
        .when(recordAnswer('a2', 'm38'))
        .then([answered('a2', 'm38')]);
    });
  });
});
