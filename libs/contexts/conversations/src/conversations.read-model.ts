// The Conversations read models, built by projections/conversations: one document per stored conversation (the
// listings) and one per message (the history, its citations and the answer's provenance). A conversation holds no
// list of its messages: appending one writes the same two documents whatever the conversation's length. Texts stay
// sealed here as in the log: a query opens them with the data keys that still exist, so an erased message is unreadable in a read
// model, in a rebuild and in a backup alike, even before its document is purged.
import { defineReadModel } from '#eventsourcing';
import type {
  AnswerUsage,
  CheckpointRef,
  Citation,
  Provenance,
  Sealed,
  StoredAttachment,
  StoredVisibility,
} from './conversation.events.js';

export interface ConversationView {
  readonly id: string;
  readonly agentId: string;
  readonly userId: string;
  readonly apiKeyId: string;
  readonly title: Sealed | null;
  readonly visibility: StoredVisibility;
  readonly archived: boolean;
  /** Absent on rows written before pinning existed: not pinned. */
  readonly pinned?: boolean;
  /** The newest message of the branch it continues (null: none yet). */
  readonly headId: string | null;
  /** True once a message started a branch or its user switched: its history is then walked from headId. */
  readonly branched: boolean;
  readonly messageCount: number;
  readonly lastMessageAt: string | null;
  readonly checkpoint: (CheckpointRef & { readonly summary: Sealed; readonly model: string }) | null;
  readonly createdAt: string;
  readonly updatedAt: string;
}

export interface MessageView {
  readonly id: string;
  readonly conversationId: string;
  /** The event's revision in the conversation's stream: the order of the history. */
  readonly seq: number;
  readonly role: 'user' | 'assistant';
  readonly content: Sealed;
  readonly attachments: readonly StoredAttachment[];
  readonly citations: readonly Citation[];
  /** Assistant messages: incomplete when the client left or the model failed mid-answer. */
  readonly status: 'complete' | 'incomplete';
  readonly replyTo: string | null;
  /** The message it follows (null: a first message): see conversation-tree.ts. */
  readonly parentId: string | null;
  readonly model: string | null;
  readonly finishReason: string | null;
  readonly usage: AnswerUsage | null;
  readonly provenance: Provenance | null;
  readonly createdAt: string;
}

export const CONVERSATIONS = 'conversations';
export const CONVERSATION_MESSAGES = 'conversation_messages';
export const CONVERSATIONS_PROJECTION = 'conversations';

export const CONVERSATIONS_READ_MODEL = defineReadModel<ConversationView>({
  name: CONVERSATIONS,
  projection: CONVERSATIONS_PROJECTION,
  indexes: [{ fields: ['agentId', 'userId', 'createdAt'] }],
});

export const MESSAGES_READ_MODEL = defineReadModel<MessageView>({
  name: CONVERSATION_MESSAGES,
  projection: CONVERSATIONS_PROJECTION,
  indexes: [{ fields: ['conversationId', 'seq'] }],
});
