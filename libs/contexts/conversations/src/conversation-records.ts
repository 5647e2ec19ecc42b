// Conversations and messages as the runtime and the queries use them: opened (plain text), whichever store holds
// them (the log and its read models, or the serving process's memory for an incognito conversation).
import type { AnswerUsage, Citation, Provenance } from './conversation.events.js';

export type Visibility = 'normal' | 'private' | 'incognito';

export interface PlainAttachment {
  readonly documentId: string | null;
  readonly name: string;
  readonly mimeType: string;
  readonly sizeBytes: number;
  /** null when it had no text, or when its key was destroyed. */
  readonly text: string | null;
}

export interface PlainMessage {
  readonly id: string;
  readonly role: 'user' | 'assistant';
  /** null only when the message's key is gone (a deletion raced the read). */
  readonly content: string | null;
  readonly attachments: readonly PlainAttachment[];
  readonly citations: readonly Citation[];
  readonly status: 'complete' | 'incomplete';
  readonly replyTo: string | null;
  /** The message it follows (null: a first message): messages form a tree of branches (conversation-tree.ts). */
  readonly parentId: string | null;
  readonly model: string | null;
  readonly finishReason: string | null;
  readonly usage: AnswerUsage | null;
  readonly provenance: Provenance | null;
  readonly createdAt: string;
}

/** A message as a page of the listing shows it: without an answer's usage and provenance (its own route has those). */
export type ListedMessage = Omit<PlainMessage, 'usage' | 'provenance'>;

/** What a user message has of the fields only answers fill. */
export const USER_MESSAGE_FIELDS = {
  citations: [],
  status: 'complete',
  replyTo: null,
  model: null,
  finishReason: null,
  usage: null,
  provenance: null,
} as const satisfies Partial<PlainMessage>;

export interface PlainCheckpoint {
  readonly checkpointId: string;
  readonly throughMessageId: string;
  readonly throughOffset: number;
  readonly summary: string | null;
  readonly model: string;
}

export interface ConversationRecord {
  readonly id: string;
  readonly agentId: string;
  readonly userId: string;
  readonly visibility: Visibility;
  readonly title: string | null;
  readonly archived: boolean;
  readonly pinned: boolean;
  /** The newest message of the branch the conversation continues (null: none yet). */
  readonly headId: string | null;
  /** Whether it ever branched: until it does, its history is every message, oldest first. */
  readonly branched: boolean;
  readonly messageCount: number;
  readonly lastMessageAt: string | null;
  readonly createdAt: string;
  readonly checkpoint: PlainCheckpoint | null;
}

/** A new answer as the runtime hands it to the store that keeps it. */
export interface NewAnswer {
  readonly messageId: string;
  readonly replyTo: string;
  readonly content: string;
  readonly citations: readonly Citation[];
  readonly status: 'complete' | 'incomplete';
  readonly finishReason: string | null;
  readonly usage: AnswerUsage;
  readonly provenance: Omit<Provenance, 'toolCalls'> & {
    readonly toolCalls: readonly {
      callId?: string;
      name: string;
      arguments: string;
      ok: boolean;
      sources: readonly number[];
      view?: { readonly appId: string; readonly uri: string; readonly result: string };
    }[];
  };
}

export interface NewCheckpoint {
  readonly checkpointId: string;
  readonly throughMessageId: string;
  readonly throughOffset: number;
  readonly summary: string;
  readonly tokensBefore: number;
  readonly tokensAfter: number;
  readonly model: string;
}
