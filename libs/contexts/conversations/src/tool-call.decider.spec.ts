import { deciderSpec } from '#testing/decider-spec';
import type { ConversationEvent } from './conversation.events.js';
import { toolCallDecider, type ToolCallCommand } from './tool-call.decider.js';

const given = deciderSpec(toolCallDecider);
const conversationId = 'cnv_1';
const callId = 'tcl_1';
const started: ConversationEvent = {
  type: 'ConversationStarted',
  data: {
    conversationId,
    agentId: 'agt_1',
    userId: 'usr_1',
    apiKeyId: 'key_1',
    visibility: 'normal',
    title: null,
  },
};
const posted: ConversationEvent = {
  type: 'UserMessagePosted',
  data: { conversationId, messageId: 'msg_1', content: 'sealed-q', attachments: [], parentId: null },
};
const request: ToolCallCommand = {
  type: 'RequestToolCall',
  conversationId,
  callId,
  answerId: 'msg_2',
  replyTo: 'msg_1',
  name: 'app_1__echo',
  arguments: 'sealed-args',
  approval: 'ask',
};
const { type: _command, ...requestedData } = request as Extract<ToolCallCommand, { type: 'RequestToolCall' }>;
const requested: ConversationEvent = { type: 'ToolCallRequested', data: requestedData };
const approved: ConversationEvent = {
  type: 'ToolCallApproved',
  data: { conversationId, callId, userId: 'usr_1' },
};
const decide = (
  decision: 'approved' | 'denied' | 'expired',
  userId: string | null = 'usr_1',
): ToolCallCommand => ({
  type: 'DecideToolCall',
  conversationId,
  callId,
  decision,
  userId,
});
const finish = (ok: boolean): ToolCallCommand => ({
  type: 'FinishToolCall',
  conversationId,
  callId,
  ok,
  content: 'sealed-result',
});

describe("a conversation's tool calls (decider)", () => {
  it('are requested once, while the question they answer is there', () => {
    given(started, posted).when(request).then([requested]);
    given(started, posted, requested).when(request).then([]);
    given(started, posted, { type: 'MessageDeleted', data: { conversationId, messageId: 'msg_1' } })
      .when(request)
      .then([]);
    given(started, posted, { type: 'ConversationDeleted', data: { conversationId, reason: 'requested' } })
      .when(request)
      .then([]);
    given().when(request).then([]);
  });

  it('are approved or denied once, by whom, or expire', () => {
    given(started, posted, requested).when(decide('approved')).then([approved]);
    given(started, posted, requested)
      .when(decide('denied'))
      .then([
        { type: 'ToolCallDenied', data: { conversationId, callId, userId: 'usr_1', reason: 'denied' } },
      ]);
    given(started, posted, requested)
      .when(decide('expired', null))
      .then([{ type: 'ToolCallDenied', data: { conversationId, callId, userId: null, reason: 'expired' } }]);
    given(started, posted, requested, approved).when(decide('denied')).then([]);
    given(started, posted).when(decide('approved')).then([]);
  });

  it('complete or fail once, and never after a denial', () => {
    given(started, posted, requested, approved)
      .when(finish(true))
      .then([{ type: 'ToolCallCompleted', data: { conversationId, callId, result: 'sealed-result' } }]);
    given(started, posted, requested)
      .when(finish(false))
      .then([{ type: 'ToolCallFailed', data: { conversationId, callId, error: 'sealed-result' } }]);
    given(started, posted, requested, approved, {
      type: 'ToolCallCompleted',
      data: { conversationId, callId, result: 'sealed-result' },
    })
      .when(finish(true))
      .then([]);
    given(started, posted, requested, {
      type: 'ToolCallDenied',
      data: { conversationId, callId, userId: null, reason: 'expired' },
    })
      .when(finish(true))
      .then([]);
  });
});
