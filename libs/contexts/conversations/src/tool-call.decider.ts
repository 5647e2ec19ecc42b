// The decisions over a conversation's tool calls, beside the Conversation decider on the same stream (it reads the
// conversation as that decider folds it): a call is requested once, while its conversation and the question it
// answers are there (a deleted one records nothing); it is approved or denied once, and only while requested; it
// completes or fails once. Time and ids come in with the commands.
import { decideByType, type Decider } from '#eventsourcing';
import {
  evolveConversation,
  initialConversationState,
  type ConversationEvent,
  type ConversationState,
  type Sealed,
} from './conversation.events.js';
import type { ToolCallEvent } from './tool-call.events.js';

type Phase = 'requested' | 'decided' | 'denied' | 'finished';

export interface ToolCallsState {
  readonly conversation: ConversationState;
  readonly calls: ReadonlyMap<string, Phase>;
}

type Id = { readonly conversationId: string; readonly callId: string };

export type ToolCallCommand =
  | (Id & {
      readonly type: 'RequestToolCall';
      readonly answerId: string;
      readonly replyTo: string;
      readonly name: string;
      readonly arguments: Sealed;
      readonly approval: 'auto' | 'ask';
    })
  | (Id & {
      readonly type: 'DecideToolCall';
      readonly decision: 'approved' | 'denied' | 'expired' | 'stopped';
      /** Who decided; null when it expired. */
      readonly userId: string | null;
    })
  | (Id & { readonly type: 'FinishToolCall'; readonly ok: boolean; readonly content: Sealed });

type Of<Type extends ToolCallCommand['type']> = Extract<ToolCallCommand, { readonly type: Type }>;

const phaseAfter = (event: ToolCallEvent): Phase => {
  switch (event.type) {
    case 'ToolCallRequested':
      return 'requested';
    case 'ToolCallApproved':
      return 'decided';
    case 'ToolCallDenied':
      return 'denied';
    case 'ToolCallCompleted':
    case 'ToolCallFailed':
      return 'finished';
  }
};

const isToolCallEvent = (event: ConversationEvent): event is ToolCallEvent =>
  event.type.startsWith('ToolCall');

function evolve(state: ToolCallsState, event: ConversationEvent): ToolCallsState {
  const conversation = evolveConversation(state.conversation, event);
  if (!isToolCallEvent(event))
    return conversation === state.conversation ? state : { ...state, conversation };
  return { conversation, calls: new Map(state.calls).set(event.data.callId, phaseAfter(event)) };
}

function requestToolCall(command: Of<'RequestToolCall'>, state: ToolCallsState): ToolCallEvent[] {
  const { conversation } = state;
  if (conversation.status !== 'active' || !conversation.messages.has(command.replyTo)) return [];
  if (state.calls.has(command.callId)) return [];
  const { type: _type, ...data } = command;
  return [{ type: 'ToolCallRequested', data }];
}

function decideToolCall(command: Of<'DecideToolCall'>, state: ToolCallsState): ToolCallEvent[] {
  const { conversationId, callId, userId } = command;
  if (state.calls.get(callId) !== 'requested') return [];
  if (command.decision === 'approved' && userId !== null)
    return [{ type: 'ToolCallApproved', data: { conversationId, callId, userId } }];
  return [
    {
      type: 'ToolCallDenied',
      data: {
        conversationId,
        callId,
        userId,
        reason: command.decision === 'approved' ? 'denied' : command.decision,
      },
    },
  ];
}

function finishToolCall(command: Of<'FinishToolCall'>, state: ToolCallsState): ToolCallEvent[] {
  const { conversationId, callId, content } = command;
  const phase = state.calls.get(callId);
  if (phase !== 'requested' && phase !== 'decided') return [];
  return [
    command.ok
      ? { type: 'ToolCallCompleted', data: { conversationId, callId, result: content } }
      : { type: 'ToolCallFailed', data: { conversationId, callId, error: content } },
  ];
}

export const toolCallDecider: Decider<ToolCallsState, ToolCallCommand, ConversationEvent> = {
  initialState: () => ({ conversation: initialConversationState(), calls: new Map() }),
  evolve,
  decide: decideByType<ToolCallsState, ToolCallCommand, ConversationEvent>({
    RequestToolCall: requestToolCall,
    DecideToolCall: decideToolCall,
    FinishToolCall: finishToolCall,
  }),
};
