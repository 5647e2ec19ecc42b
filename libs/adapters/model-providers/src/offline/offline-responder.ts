// What a context adds to the offline chat model, and the ordered registry of those additions. The offline model's
// core (`offline-chat.ts`: tool choice, the plain reply, limits, stop, streaming, token counts) knows no context's
// prompt format; each context that writes a format into prompts (grounding sources, recalled memories, the Skills
// manifest, code run results…) reads it back in its own responder and registers it here.
//
// Responders are registered by the composition root (`apps/offline/offline-responders.ts`) in one fixed order, in
// every thread that answers offline requests: the module that registers them names itself (`setupModule`), and the
// offline worker threads import it before their first task, so a big request answered in a worker gets the same
// reply as a small one answered inline.
import type {
  ChatCompletionContentPart,
  ChatCompletionContentPartRefusal,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';

type Messages = readonly ChatCompletionMessageParam[];

/** A text reply of the responders: what it says, and whether it answers from what the request holds. */
export interface OfflineReply {
  readonly text: string;
  /**
   * True when the reply answers from something the request holds (sources quoted, a memory recalled, a Skill
   * followed); false when it says nothing there answers. A later responder adds to a found reply, else replaces it.
   */
  readonly found: boolean;
}

/** A built-in tool a context offers Agents: the offline model calls it only when the conversation asks for it. */
export interface OfflineTool {
  readonly name: string;
  /** Whether the user's message asks for this tool now (the turn has not called it yet). */
  readonly asked?: (messages: Messages) => boolean;
  /**
   * Whether the turn is about this tool when it is offered (a message holding code to run): then no other built-in
   * tool is asked for, whatever the message's words say.
   */
  readonly claims?: (messages: Messages) => boolean;
  /** Whether it is the one call to make right after a tool result (a reference file of the Skill just loaded). */
  readonly followUp?: (messages: Messages) => boolean;
  /** Its arguments, from the messages and the user's last words; undefined for an example of its JSON Schema. */
  readonly args?: (messages: Messages, said: string) => unknown;
}

/** One context's part of the offline chat model. Every member is optional. */
export interface OfflineResponder {
  /** Who registered it (a context's name), for errors and tests. */
  readonly name: string;
  /** A whole answer for a request of the context's own (a memory extraction), whatever `response_format` asks. */
  readonly answer?: (messages: Messages) => string | undefined;
  /** The context's built-in tools, in the order they are picked when a required call names none. */
  readonly tools?: readonly OfflineTool[];
  /**
   * Offered tools of this context whose names are not fixed (an App's tools): never picked of the model's own
   * accord, only when the person's message names one in the `call <tool> <JSON>` form (offline-tool-command.ts).
   */
  readonly ownsTool?: (name: string) => boolean;
  /**
   * The text reply, given the reply of the responders registered before this one (`before`, computed on demand):
   * return it unchanged when the request holds nothing of this context.
   */
  readonly reply?: (messages: Messages, before: () => OfflineReply | undefined) => OfflineReply | undefined;
}

let registered: readonly OfflineResponder[] = [];
let setup: string | undefined;

/**
 * Sets the offline model's responders, in order, replacing any set before. `setupModule` is the URL of the module
 * making this call; the offline worker threads import it so that they answer with the same responders.
 */
export const useOfflineResponders = (responders: readonly OfflineResponder[], setupModule?: string): void => {
  const names = responders.map((responder) => responder.name);
  const repeated = names.find((name, index) => names.indexOf(name) !== index);
  if (repeated !== undefined) throw new Error(`offline responder '${repeated}' is registered twice`);
  registered = [...responders];
  setup = setupModule;
};

/** The registered responders, in order. */
export const offlineResponders = (): readonly OfflineResponder[] => registered;

/** The module the offline worker threads import before their first task, if one registered the responders. */
export const offlineSetupModule = (): string | undefined => setup;

// Reading a conversation: what every responder needs.

type Part = ChatCompletionContentPart | ChatCompletionContentPartRefusal;

/** The text of a message's content: its text and refusal parts, one a line. */
export const textOf = (content: string | readonly Part[] | null | undefined): string => {
  if (typeof content === 'string') return content;
  if (!content) return '';
  return content
    .map((part) => (part.type === 'text' ? part.text : part.type === 'refusal' ? part.refusal : ''))
    .filter((text) => text.length > 0)
    .join('\n');
};

export const lastUserMessage = (messages: Messages) =>
  messages.findLast((message) => message.role === 'user');

export const isToolResult = (message: ChatCompletionMessageParam): boolean =>
  message.role === 'tool' || message.role === 'function';

/** The messages after the last user message: the current turn's tool calls and results. */
export const currentTurn = (messages: Messages): Messages =>
  messages.slice(messages.findLastIndex((message) => message.role === 'user') + 1);

/** The names of the functions the model called in the current turn. */
export const turnCalls = (messages: Messages): string[] =>
  currentTurn(messages).flatMap((message) =>
    message.role === 'assistant'
      ? (message.tool_calls ?? []).flatMap((call) => (call.type === 'function' ? [call.function.name] : []))
      : [],
  );

/** The results of the current turn's tool calls, read with `parse`; the last one read wins. */
export const lastTurnResult = <T>(
  messages: Messages,
  parse: (text: string) => T | undefined,
): T | undefined =>
  currentTurn(messages)
    .filter(isToolResult)
    .map((message) => parse(textOf(message.content)))
    .findLast((value) => value !== undefined);
