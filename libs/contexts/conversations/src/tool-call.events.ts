// The calls of recorded tools (an App's) in a conversation's stream: requested (what the model asked, its arguments
// sealed with the answer's data key), approved or denied by the person whose turn it is (or expired), and completed
// or failed (the result or error sealed the same way). Deleting the answer or the conversation destroys that key, so
// the log keeps who called and approved what, and when, while the words are gone.
import type { DomainEvent } from '#kernel';

/** Text sealed with a data key, as conversation.events.ts's `Sealed` (that file includes these events: no import back). */
type Sealed = string;

type Id = { readonly conversationId: string; readonly callId: string };

export type ToolCallEvent =
  | DomainEvent<
      'ToolCallRequested',
      Id & {
        /** The answer the call serves (its data key seals the texts) and the question it answers. */
        readonly answerId: string;
        readonly replyTo: string;
        /** The tool's name as the model saw it (`<appId>__<tool>`). */
        readonly name: string;
        readonly arguments: Sealed;
        /** How it was to be approved: `auto` calls are made without asking. */
        readonly approval: 'auto' | 'ask';
      }
    >
  | DomainEvent<'ToolCallApproved', Id & { readonly userId: string }>
  | DomainEvent<
      'ToolCallDenied',
      Id & {
        /** Who refused it; null when nobody answered in time (`expired`) or the turn was stopped while it waited. */
        readonly userId: string | null;
        readonly reason: 'denied' | 'expired' | 'stopped';
      }
    >
  | DomainEvent<'ToolCallCompleted', Id & { readonly result: Sealed }>
  | DomainEvent<'ToolCallFailed', Id & { readonly error: Sealed }>;

export type ToolCallEventType = ToolCallEvent['type'];

/** A projector of conversation events that keeps nothing of tool calls spreads this into its handlers. */
export const TOOL_CALL_EVENTS_NOT_READ = {
  ToolCallRequested: null,
  ToolCallApproved: null,
  ToolCallDenied: null,
  ToolCallCompleted: null,
  ToolCallFailed: null,
} as const satisfies Record<ToolCallEventType, null>;
