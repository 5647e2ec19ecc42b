// The events a turn reports as it goes: streamed to the client as named Server-Sent Events (`conversation` first,
// then `retrieval`, `compaction`, `delta`, `tool_call`, `tool_approval_required`, `tool_auth_required`,
// `tool_progress`, `tool_log`, `tool_elicitation_required`, `tool_result`; the controller adds `done` or `error` last),
// and ignored by a non-streamed turn.
import type { Citation } from '../conversation.events.js';
import type { ToolView } from './tool-view.js';

export type TurnEvent =
  | {
      readonly event: 'conversation';
      readonly data: {
        readonly conversationId: string;
        readonly created: boolean;
        readonly visibility: string;
        readonly userMessage: { readonly id: string; readonly createdAt: string };
      };
    }
  | {
      readonly event: 'retrieval';
      readonly data: { readonly sources: readonly (Citation & { readonly text: string })[] };
    }
  | { readonly event: 'delta'; readonly data: { readonly text: string } }
  | {
      readonly event: 'tool_call';
      readonly data: { readonly id: string; readonly name: string; readonly arguments: string };
    }
  | {
      /** A call of a tool set to `ask` waits for the decision of the person whose turn it is. */
      readonly event: 'tool_approval_required';
      readonly data: {
        readonly callId: string;
        /** The model's id of the call, as `tool_call` named it. */
        readonly id: string;
        readonly name: string;
        readonly arguments: string;
      };
    }
  | {
      /** A call of an App that acts in each person's name, and this person has not connected their account. */
      readonly event: 'tool_auth_required';
      readonly data: {
        readonly id: string;
        readonly name: string;
        readonly appId: string;
        /** POST it to start connecting (`{ authorizationUrl }` answers). */
        readonly connectUrl: string;
      };
    }
  | {
      readonly event: 'tool_result';
      readonly data: {
        readonly id: string;
        readonly name: string;
        readonly ok: boolean;
        readonly sources: readonly Citation[];
        /** The MCP App view the result renders in. */
        readonly view?: ToolView;
      };
    }
  | {
      /** A running App tool call's progress, as its server reports it (throttled; not recorded). */
      readonly event: 'tool_progress';
      readonly data: {
        readonly callId: string;
        readonly id: string;
        readonly progress: number;
        readonly total?: number;
        readonly message?: string;
      };
    }
  | {
      /** A running App tool call's server logged a line at `info` or above (capped; not recorded). */
      readonly event: 'tool_log';
      readonly data: {
        readonly callId: string;
        readonly id: string;
        readonly level: string;
        readonly text: string;
      };
    }
  | {
      /** A running App tool call's server asks the person a question (a form of the requested schema). */
      readonly event: 'tool_elicitation_required';
      readonly data: {
        readonly callId: string;
        readonly id: string;
        readonly elicitationId: string;
        readonly message: string;
        readonly requestedSchema: Readonly<Record<string, unknown>>;
      };
    }
  | {
      readonly event: 'compaction';
      readonly data:
        | {
            readonly checkpointId: string;
            readonly throughMessageId: string;
            readonly throughOffset: number;
            readonly tokensBefore: number;
            readonly tokensAfter: number;
          }
        | { readonly failed: true; readonly fallback: 'shorter_window'; readonly message: string };
    };

/** A context provider's word after the answer (memory saved, a proposal waiting), sent as the event `name`. */
export type NoticeEvent = { readonly event: 'notice'; readonly name: string; readonly data: unknown };

export type TurnEmitter = (event: TurnEvent | NoticeEvent) => Promise<void>;
