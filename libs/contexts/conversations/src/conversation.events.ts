// The Conversation aggregate: its events, state and evolve. A conversation belongs to one Agent and one user. Every
// text a user can erase (message content, attachment names and texts, titles, summaries, tool arguments) is sealed
// with a data key from the key store before it reaches an event (a `Sealed` string): deleting a message or the
// conversation destroys its keys, so the log keeps who did what and when, and the words are gone everywhere.
// Incognito conversations never reach the log at all (they live in the serving process's memory).
// Over 300 lines on purpose: the aggregate's events, its state and its evolve are one table read together.
import type { DomainEvent } from '#kernel';
import { answerMovesHead } from './conversation-tree.js';
import { MessageTree } from './message-tree.js';
import type { ToolCallEvent } from './tool-call.events.js';

/** Text sealed with a data key (`sealed:v1:<keyId>:…`, see ContentCipher); unreadable once the key is destroyed. */
export type Sealed = string;

/** Stored conversations are normal or private; incognito ones are never stored. */
export type StoredVisibility = 'normal' | 'private';

export interface StoredAttachment {
  /** The Knowledge document it names, or null for an uploaded file. */
  readonly documentId: string | null;
  readonly name: Sealed;
  readonly mimeType: string;
  readonly sizeBytes: number;
  /** The text extracted from it (what the model reads), or null when it had none. */
  readonly text: Sealed | null;
}

/** A source the answer cites: checked on the server against what this turn retrieved. */
export interface Citation {
  readonly index: number;
  readonly documentId: string;
  readonly documentName: string;
  readonly documentVersion: number;
  readonly contentHash: string;
  readonly sectionPath: readonly string[];
  readonly start: number;
  readonly end: number;
  readonly score: number;
  /**
   * With the Agent's includeAiSummary: the cluster summary of the section-summary index the answer was given, when it
   * covers the cited document (null: none did). Its text is sealed with the message's key in the log and the read
   * model, clear in the records the reader opens. Absent in answers recorded before it was kept.
   */
  readonly summary?: CitationSummary | null;
}

export interface CitationSummary {
  readonly nodeId: string;
  readonly level: number;
  readonly text: Sealed;
}

export interface ToolCallRecord {
  /** A recorded tool's call (an App's): the id its ToolCall* events carry. */
  readonly callId?: string;
  readonly name: string;
  readonly arguments: Sealed;
  readonly ok: boolean;
  /** Numbers of the sources the call added. */
  readonly sources: readonly number[];
  /** The MCP App view its result renders in (an App tool's): the App, the `ui://` resource, the result sealed. */
  readonly view?: { readonly appId: string; readonly uri: string; readonly result: Sealed };
}

/** A versioned item a context provider put in the prompt (a memory, a Skill version). */
export interface ProvenanceItem {
  readonly kind: string;
  readonly id: string;
  readonly version: number;
  /** The version's own id, as the routes name versions (a Skill's `skv_…`); absent on older events and for memories. */
  readonly versionId?: string;
}

/** What produced an answer (none of the peers keeps it): enough to find every answer that used a document. */
export interface Provenance {
  readonly model: string;
  readonly provider: string;
  readonly sampling: {
    readonly temperature: number | null;
    readonly topP: number | null;
    readonly topK: number | null;
  };
  /** The Agent's stream revision at the turn, and a hash of its system prompt then. */
  readonly agentRevision: number | null;
  readonly systemPromptSha256: string;
  readonly sources: readonly Citation[];
  readonly toolCalls: readonly ToolCallRecord[];
  /** Model calls the turn made (answer steps). */
  readonly steps: number;
  /** The checkpoint the prompt started from, if the history was compacted. */
  readonly checkpointId: string | null;
  /** Context providers that contributed (knowledge now; memory and skills later). */
  readonly contextProviders: readonly string[];
  /** The memories and Skill versions the prompt held (added later: older answers have none). */
  readonly contextItems?: readonly ProvenanceItem[];
}

export interface AnswerUsage {
  readonly inputTokens: number;
  readonly cachedInputTokens: number;
  readonly outputTokens: number;
}

type Id = { readonly conversationId: string };

export type ConversationEvent =
  | DomainEvent<
      'ConversationStarted',
      Id & {
        readonly agentId: string;
        readonly userId: string;
        readonly apiKeyId: string;
        readonly visibility: StoredVisibility;
        readonly title: Sealed | null;
      }
    >
  | DomainEvent<
      'UserMessagePosted',
      Id & {
        readonly messageId: string;
        readonly content: Sealed;
        readonly attachments: readonly StoredAttachment[];
        /**
         * The message it follows: the conversation's head, or an earlier message when it starts a branch (an edited or
         * regenerated question; null: before the first message). Absent on messages posted before branches existed:
         * they followed the head.
         */
        readonly parentId?: string | null;
      }
    >
  | DomainEvent<
      'AssistantMessageRecorded',
      Id & {
        readonly messageId: string;
        readonly replyTo: string;
        readonly content: Sealed;
        readonly citations: readonly Citation[];
        /** incomplete: the client went away or the model failed mid-answer; content is what was produced. */
        readonly status: 'complete' | 'incomplete';
        readonly finishReason: string | null;
        readonly usage: AnswerUsage;
        readonly provenance: Provenance;
      }
    >
  | DomainEvent<
      'ConversationCompacted',
      Id & {
        readonly checkpointId: string;
        readonly throughMessageId: string;
        readonly throughOffset: number;
        readonly summary: Sealed;
        readonly tokensBefore: number;
        readonly tokensAfter: number;
        readonly model: string;
      }
    >
  | DomainEvent<'ConversationRenamed', Id & { readonly title: Sealed }>
  | DomainEvent<'ConversationArchived', Id>
  | DomainEvent<'ConversationUnarchived', Id>
  | DomainEvent<'ConversationPinned', Id>
  | DomainEvent<'ConversationUnpinned', Id>
  | DomainEvent<'ConversationMadePrivate', Id>
  | DomainEvent<'ConversationMadeNormal', Id>
  /** Its user moved to another branch: the head is the newest message under the one chosen. */
  | DomainEvent<'BranchSwitched', Id & { readonly headId: string }>
  | DomainEvent<'MessageDeleted', Id & { readonly messageId: string }>
  /** A checkpoint summarised a message that was deleted since: the summary's key is destroyed with it. */
  | DomainEvent<
      'CheckpointDiscarded',
      Id & { readonly checkpointId: string; readonly reason: 'message_deleted' }
    >
  | DomainEvent<'ConversationDeleted', Id & { readonly reason: 'requested' | 'agent_deleted' }>
  /** A recorded tool's call (tool-call.events.ts): decided by the tool-call decider; the conversation's state keeps none. */
  | ToolCallEvent;

export type ConversationEventType = ConversationEvent['type'];

export interface CheckpointRef {
  readonly checkpointId: string;
  readonly throughMessageId: string;
  readonly throughOffset: number;
}

export type ConversationState =
  | { readonly status: 'absent' }
  | {
      readonly status: 'active' | 'deleted';
      readonly conversationId: string;
      readonly agentId: string;
      readonly userId: string;
      readonly visibility: StoredVisibility;
      readonly archived: boolean;
      readonly pinned: boolean;
      /**
       * Live messages, oldest first (deleted ones are removed), each with its parent (null: a first message). Messages
       * form a tree: a question edited or regenerated starts a branch beside the earlier one, which is kept. Deleting a
       * message hands its children to its parent.
       */
      readonly messages: MessageTree;
      /** The last message of the branch the conversation continues (null: none yet). */
      readonly headId: string | null;
      readonly checkpoint: CheckpointRef | null;
    };

export const conversationStreamId = (conversationId: string): string => `conversation-${conversationId}`;

export const initialConversationState = (): ConversationState => ({ status: 'absent' });

export function evolveConversation(state: ConversationState, event: ConversationEvent): ConversationState {
  if (event.type === 'ConversationStarted')
    return {
      status: 'active',
      conversationId: event.data.conversationId,
      agentId: event.data.agentId,
      userId: event.data.userId,
      visibility: event.data.visibility,
      archived: false,
      pinned: false,
      messages: MessageTree.empty(),
      headId: null,
      checkpoint: null,
    };
  if (state.status === 'absent') return state;
  switch (event.type) {
    case 'UserMessagePosted': {
      const { messageId, parentId } = event.data;
      return {
        ...state,
        messages: state.messages.with(messageId, parentId === undefined ? state.headId : parentId),
        headId: messageId,
      };
    }
    case 'AssistantMessageRecorded': {
      const { messageId, replyTo } = event.data;
      return {
        ...state,
        messages: state.messages.with(messageId, replyTo),
        headId: answerMovesHead(state.headId, replyTo, (id) => state.messages.parentOf(id))
          ? messageId
          : state.headId,
      };
    }
    case 'BranchSwitched':
      return { ...state, headId: event.data.headId };
    case 'ConversationCompacted':
      return {
        ...state,
        checkpoint: {
          checkpointId: event.data.checkpointId,
          throughMessageId: event.data.throughMessageId,
          throughOffset: event.data.throughOffset,
        },
      };
    case 'ConversationRenamed':
    case 'ToolCallRequested':
    case 'ToolCallApproved':
    case 'ToolCallDenied':
    case 'ToolCallCompleted':
    case 'ToolCallFailed':
      return state;
    case 'ConversationArchived':
      return { ...state, archived: true };
    case 'ConversationUnarchived':
      return { ...state, archived: false };
    case 'ConversationPinned':
      return { ...state, pinned: true };
    case 'ConversationUnpinned':
      return { ...state, pinned: false };
    case 'ConversationMadePrivate':
      return { ...state, visibility: 'private' };
    case 'ConversationMadeNormal':
      return { ...state, visibility: 'normal' };
    case 'MessageDeleted': {
      const { messageId } = event.data;
      const parentId = state.messages.parentOf(messageId) ?? null;
      return {
        ...state,
        messages: state.messages.without(messageId),
        headId: state.headId === messageId ? parentId : state.headId,
      };
    }
    case 'CheckpointDiscarded':
      return state.checkpoint?.checkpointId === event.data.checkpointId
        ? { ...state, checkpoint: null }
        : state;
    case 'ConversationDeleted':
      return {
        ...state,
        status: 'deleted',
        messages: MessageTree.empty(),
        headId: null,
        checkpoint: null,
      };
  }
}
