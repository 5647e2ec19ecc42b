// The Conversation decider: a turn posts the user's message (starting the conversation on its first turn) and later
// records the answer; compaction, renaming, archiving, visibility and deletions are decisions of their own. Only
// the conversation's user may act on it: for anyone else it does not exist (404, the same answer as an unknown id,
// so ids cannot be probed). Time and ids come in with the commands.
import { PlatformError } from '#kernel';
import { decideByType, type Decider } from '#eventsourcing';
import {
  evolveConversation,
  initialConversationState,
  type ConversationEvent,
  type ConversationState,
  type Sealed,
  type StoredAttachment,
  type StoredVisibility,
} from './conversation.events.js';
import { newestUnder } from './conversation-tree.js';

export class ConversationNotFoundError extends PlatformError {
  constructor(conversationId: string) {
    super(
      'not_found',
      'conversation_not_found',
      `Conversation '${conversationId}' was not found for this user and Agent`,
      'conversationId',
    );
  }
}

export class MessageNotFoundError extends PlatformError {
  constructor(messageId: string) {
    super(
      'not_found',
      'message_not_found',
      `Message '${messageId}' is not in this conversation`,
      'messageId',
    );
  }
}

type Id = { readonly conversationId: string };
type Data<T extends ConversationEvent['type']> = Extract<ConversationEvent, { type: T }>['data'];

export type ConversationCommand =
  | (Id & {
      readonly type: 'StartTurn';
      /** Who acts: the conversation's user. */
      readonly userId: string;
      readonly agentId: string;
      /** Given on a conversation's first turn: it starts the conversation. */
      readonly start: {
        readonly apiKeyId: string;
        readonly visibility: StoredVisibility;
        readonly title: Sealed | null;
      } | null;
      readonly messageId: string;
      readonly content: Sealed;
      readonly attachments: readonly StoredAttachment[];
      /** The message it follows when it starts a branch (null: before the first); absent: the head. */
      readonly parentId?: string | null;
    })
  | (Id & {
      readonly type: 'RecordAnswer';
      readonly answer: Omit<Data<'AssistantMessageRecorded'>, 'conversationId'>;
    })
  | (Id & {
      readonly type: 'CompactConversation';
      readonly checkpoint: Omit<Data<'ConversationCompacted'>, 'conversationId'>;
    })
  | (Id & {
      readonly type: 'ChangeConversation';
      readonly userId: string;
      readonly title?: Sealed;
      readonly archived?: boolean;
      readonly pinned?: boolean;
      readonly visibility?: StoredVisibility;
    })
  | (Id & { readonly type: 'SwitchBranch'; readonly userId: string; readonly messageId: string })
  | (Id & { readonly type: 'DeleteMessage'; readonly userId: string; readonly messageId: string })
  | (Id & {
      readonly type: 'DeleteConversation';
      /** The user who asks; null when the platform cascades an Agent's deletion. */
      readonly userId: string | null;
      readonly reason: 'requested' | 'agent_deleted';
    });

type Live = Extract<ConversationState, { status: 'active' | 'deleted' }>;

/**
 * The conversation as its user sees it: any other user, Agent or a deleted one is "not found". Who may reach a
 * conversation is the policy's `user.own`, which the gate asks before any command runs; the decider keeps the same
 * rule as an invariant of the stream, because the read model the gate reads lags it (a conversation started a moment
 * ago is not there yet, and a turn naming its id must not continue another user's).
 */
function owned(
  state: ConversationState,
  conversationId: string,
  userId: string | null,
  agentId?: string,
): Live {
  if (
    state.status !== 'active' ||
    (userId !== null && state.userId !== userId) ||
    (agentId !== undefined && state.agentId !== agentId)
  )
    throw new ConversationNotFoundError(conversationId);
  return state;
}

type ConversationOf<Type extends ConversationCommand['type']> = Extract<
  ConversationCommand,
  { readonly type: Type }
>;

function startTurn(command: ConversationOf<'StartTurn'>, state: ConversationState): ConversationEvent[] {
  const { conversationId } = command;
  const events: ConversationEvent[] = [];
  let headId: string | null = null;
  if (command.start) {
    // A retried first turn finds its conversation started: it continues it instead of failing.
    if (state.status === 'absent')
      events.push({
        type: 'ConversationStarted',
        data: {
          conversationId,
          agentId: command.agentId,
          userId: command.userId,
          apiKeyId: command.start.apiKeyId,
          visibility: command.start.visibility,
          title: command.start.title,
        },
      });
  }
  if (state.status !== 'absent' || !command.start) {
    const live = owned(state, conversationId, command.userId, command.agentId);
    // A retried turn (the same Idempotency-Key) finds its message posted: nothing to post again.
    if (live.messages.has(command.messageId)) return [];
    headId = live.headId;
    if (command.parentId && !live.messages.has(command.parentId))
      throw new MessageNotFoundError(command.parentId);
  } else if (command.parentId) throw new MessageNotFoundError(command.parentId);
  events.push({
    type: 'UserMessagePosted',
    data: {
      conversationId,
      messageId: command.messageId,
      content: command.content,
      attachments: command.attachments,
      parentId: command.parentId === undefined ? headId : command.parentId,
    },
  });
  return events;
}

function recordAnswer(
  command: ConversationOf<'RecordAnswer'>,
  state: ConversationState,
): ConversationEvent[] {
  const { conversationId } = command;
  // The conversation (or the message answered) was deleted while the model answered: nothing to record.
  if (state.status !== 'active' || !state.messages.has(command.answer.replyTo)) return [];
  if (state.messages.has(command.answer.messageId)) return [];
  return [{ type: 'AssistantMessageRecorded', data: { conversationId, ...command.answer } }];
}

function compactConversation(
  command: ConversationOf<'CompactConversation'>,
  state: ConversationState,
): ConversationEvent[] {
  const { conversationId } = command;
  if (state.status !== 'active' || !state.messages.has(command.checkpoint.throughMessageId)) return [];
  if (state.checkpoint?.checkpointId === command.checkpoint.checkpointId) return [];
  return [{ type: 'ConversationCompacted', data: { conversationId, ...command.checkpoint } }];
}

function changeConversation(
  command: ConversationOf<'ChangeConversation'>,
  state: ConversationState,
): ConversationEvent[] {
  const { conversationId } = command;
  const live = owned(state, conversationId, command.userId);
  const events: ConversationEvent[] = [];
  if (command.title !== undefined)
    events.push({ type: 'ConversationRenamed', data: { conversationId, title: command.title } });
  if (command.archived !== undefined && command.archived !== live.archived)
    events.push({
      type: command.archived ? 'ConversationArchived' : 'ConversationUnarchived',
      data: { conversationId },
    });
  if (command.pinned !== undefined && command.pinned !== live.pinned)
    events.push({
      type: command.pinned ? 'ConversationPinned' : 'ConversationUnpinned',
      data: { conversationId },
    });
  if (command.visibility !== undefined && command.visibility !== live.visibility)
    events.push({
      type: command.visibility === 'private' ? 'ConversationMadePrivate' : 'ConversationMadeNormal',
      data: { conversationId },
    });
  return events;
}

function switchBranch(
  command: ConversationOf<'SwitchBranch'>,
  state: ConversationState,
): ConversationEvent[] {
  const { conversationId } = command;
  const live = owned(state, conversationId, command.userId);
  if (!live.messages.has(command.messageId)) throw new MessageNotFoundError(command.messageId);
  const headId = newestUnder([...live.messages.entries()], command.messageId);
  return headId === live.headId ? [] : [{ type: 'BranchSwitched', data: { conversationId, headId } }];
}

function deleteMessage(
  command: ConversationOf<'DeleteMessage'>,
  state: ConversationState,
): ConversationEvent[] {
  const { conversationId } = command;
  const live = owned(state, conversationId, command.userId);
  const at = live.messages.indexOf(command.messageId);
  if (at < 0) throw new MessageNotFoundError(command.messageId);
  const events: ConversationEvent[] = [
    { type: 'MessageDeleted', data: { conversationId, messageId: command.messageId } },
  ];
  // A summary that read the deleted message would carry its words on: it goes too (the next turn compacts anew).
  const checkpoint = live.checkpoint;
  if (checkpoint && at <= live.messages.indexOf(checkpoint.throughMessageId))
    events.push({
      type: 'CheckpointDiscarded',
      data: { conversationId, checkpointId: checkpoint.checkpointId, reason: 'message_deleted' },
    });
  return events;
}

function deleteConversation(
  command: ConversationOf<'DeleteConversation'>,
  state: ConversationState,
): ConversationEvent[] {
  const { conversationId } = command;
  if (command.userId === null && state.status !== 'active') return [];
  owned(state, conversationId, command.userId);
  return [{ type: 'ConversationDeleted', data: { conversationId, reason: command.reason } }];
}

const decide = decideByType<ConversationState, ConversationCommand, ConversationEvent>({
  StartTurn: startTurn,
  RecordAnswer: recordAnswer,
  CompactConversation: compactConversation,
  ChangeConversation: changeConversation,
  SwitchBranch: switchBranch,
  DeleteMessage: deleteMessage,
  DeleteConversation: deleteConversation,
});

export const conversationDecider: Decider<ConversationState, ConversationCommand, ConversationEvent> = {
  initialState: initialConversationState,
  evolve: evolveConversation,
  decide,
};
