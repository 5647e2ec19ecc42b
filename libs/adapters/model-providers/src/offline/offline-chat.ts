// The offline chat model: no language model at all, a deterministic stand-in that says so. The reply is derived
// from the conversation only (same request → same reply). This is its core, which knows no context's prompt format:
// - tools: the tool the person's message names in the form `call <tool> <JSON arguments>`, with those arguments;
//   else the first offered function tool (or the one `tool_choice` names) with arguments built from the tool's JSON
//   Schema, except the built-in tools the registered responders own (`offline-responder.ts`), which it calls only
//   when the conversation asks for them (a responder's tool that claims the turn, then the others in registration
//   order), and the tools a responder owns by name (an App's), called only in the `call` form; right after a tool
//   result, only the one a responder names as the follow-up;
// - text: the reply the registered responders make (grounded in sources, remembered, following a Skill, after a
//   code run — each context reads its own format back), else "The tool returned: …" after tool results, else the
//   last user message quoted verbatim; a responder's whole answer (a memory extraction's JSON) wins over both and
//   over `response_format`;
// - `max_completion_tokens`/`max_tokens` and `stop` are honoured like an upstream does; `seed`, `temperature` and
//   the like change nothing; the streamed answer is the complete one cut in word-sized pieces.
// Over 300 lines on purpose: the offline model's deterministic reply, tool calls and stream are one stand-in
// model, and its rules read each other.
import { setTimeout as sleep } from 'node:timers/promises';
import type {
  ChatCompletionContentPart,
  ChatCompletionContentPartRefusal,
  ChatCompletionFunctionTool,
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import { sha256, ValidationError } from '#kernel/thread-kit';
import type { ChatDelta, ChatRequest, ChatResult } from '../provider.port.js';
import {
  lastUserMessage,
  offlineResponders,
  textOf,
  type OfflineReply,
  type OfflineTool,
} from './offline-responder.js';
import { exampleForSchema } from './schema-example.js';
import { toolCommand } from './offline-tool-command.js';
import { countMessageTokens, countTokens, truncateToTokens } from '#tokenizer';

export const OFFLINE_REPLY_PREFIX = 'Offline model reply: ';
/** Characters of argument JSON per streamed tool-call fragment. */
const ARGUMENT_FRAGMENT = 8;

export interface OfflineChatOptions {
  /** Pause between streamed pieces, in milliseconds; 0 (the default) streams as fast as the consumer reads. */
  readonly wordDelayMs?: number;
}

type Part = ChatCompletionContentPart | ChatCompletionContentPartRefusal;

const nonTextParts = (content: string | readonly Part[] | null | undefined): number =>
  Array.isArray(content) ? content.filter((part) => part.type !== 'text').length : 0;

const countWords = (text: string): number =>
  text.match(/[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu)?.length ?? 0;

const plural = (count: number, word: string): string => `${count} ${word}${count === 1 ? '' : 's'}`;

/** The trailing tool (or legacy function) results: what the model answers after its tool call. */
const trailingToolResults = (messages: readonly ChatCompletionMessageParam[]): string[] => {
  const results: string[] = [];
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index];
    if (message.role !== 'tool' && message.role !== 'function') break;
    results.unshift(textOf(message.content));
  }
  return results;
};

/** The registered responders' reply: each gets the reply of those before it, on demand. */
const responderReply = (messages: readonly ChatCompletionMessageParam[]): OfflineReply | undefined =>
  offlineResponders().reduce<() => OfflineReply | undefined>(
    (before, responder) => (responder.reply ? () => responder.reply!(messages, before) : before),
    () => undefined,
  )();

const textReply = (messages: readonly ChatCompletionMessageParam[]): string => {
  const answered = responderReply(messages);
  if (answered !== undefined) return answered.text;
  const toolResults = trailingToolResults(messages);
  if (toolResults.length > 0)
    return OFFLINE_REPLY_PREFIX + toolResults.map((result) => `The tool returned: ${result}`).join('\n');
  const user = lastUserMessage(messages);
  if (!user) return `${OFFLINE_REPLY_PREFIX}there is no user message to answer.`;
  const text = textOf(user.content);
  const attachments = nonTextParts(user.content);
  return (
    `${OFFLINE_REPLY_PREFIX}you said "${text}" (${plural(countWords(text), 'word')}, ` +
    `${plural(Array.from(text).length, 'character')}` +
    (attachments > 0 ? `, and ${plural(attachments, 'non-text part')}` : '') +
    '). This is a deterministic offline stand-in; no language model was called.'
  );
};

/** The built-in tools of the registered responders, in registration order. */
const builtInTools = (): readonly OfflineTool[] =>
  offlineResponders().flatMap((responder) => responder.tools ?? []);

/**
 * The tool the model picks itself: the built-in tool that claims the turn when it is asked for (and no other
 * built-in one then), else the first built-in tool asked for, else any other tool always (or, when one is required,
 * the first built-in tool offered).
 */
const pickTool = (
  request: ChatRequest,
  tools: readonly ChatCompletionFunctionTool[],
  required: boolean,
): ChatCompletionFunctionTool | undefined => {
  const named = (name: string) => tools.find((tool) => tool.function.name === name);
  const builtIn = builtInTools().filter((tool) => named(tool.name) !== undefined);
  const claiming = builtIn.find((tool) => tool.claims?.(request.messages));
  const asked = claiming
    ? claiming.asked?.(request.messages)
      ? claiming
      : undefined
    : builtIn.find((tool) => tool.asked?.(request.messages));
  if (asked) return named(asked.name);
  const names = new Set(builtInTools().map((tool) => tool.name));
  const owned = (name: string) =>
    offlineResponders().some((responder) => responder.ownsTool?.(name) === true);
  return (
    tools.find((tool) => !names.has(tool.function.name) && !owned(tool.function.name)) ??
    (required && builtIn.length > 0 ? named(builtIn[0]!.name) : undefined)
  );
};

const allowedNames = (choice: ChatRequest['tool_choice']): string[] =>
  typeof choice === 'object' && choice.type === 'allowed_tools'
    ? choice.allowed_tools.tools.flatMap((entry) => {
        const fn = entry.function;
        const name = typeof fn === 'object' && fn !== null && 'name' in fn ? fn.name : undefined;
        return typeof name === 'string' ? [name] : [];
      })
    : [];

/** Whether `tool_choice` lets the model call the named function of its own accord. */
const choiceAllows = (choice: ChatRequest['tool_choice'], name: string): boolean => {
  if (choice === undefined || choice === 'auto' || choice === 'required') return true;
  if (typeof choice !== 'object') return false;
  if (choice.type === 'function') return choice.function.name === name;
  return allowedNames(choice).includes(name);
};

/** The function tool to call, or undefined to answer in text. */
const chosenTool = (request: ChatRequest): ChatCompletionFunctionTool | undefined => {
  const tools = (request.tools ?? []).filter(
    (tool): tool is ChatCompletionFunctionTool => tool.type === 'function',
  );
  const choice = request.tool_choice;
  if (tools.length === 0 || choice === 'none') return undefined;
  const byName = (name: string) => tools.find((tool) => tool.function.name === name);
  if (trailingToolResults(request.messages).length > 0) {
    // The one call after a tool result: the built-in tool a responder names as the follow-up (a reference file
    // named in the message, once a Skill is loaded).
    const next = builtInTools().find(
      (tool) =>
        byName(tool.name) !== undefined &&
        choiceAllows(choice, tool.name) &&
        tool.followUp?.(request.messages) === true,
    );
    return next ? byName(next.name) : undefined;
  }
  const commanded = toolCommand(request.messages);
  if (commanded && byName(commanded.name) && choiceAllows(choice, commanded.name))
    return byName(commanded.name);
  if (typeof choice === 'object' && choice.type === 'function') {
    const tool = byName(choice.function.name);
    if (!tool)
      throw new ValidationError(
        'unknown_tool',
        `tool_choice names the function '${choice.function.name}', which is not among the tools`,
        'tool_choice',
      );
    return tool;
  }
  if (typeof choice === 'object' && choice.type === 'allowed_tools') {
    const allowed = allowedNames(choice).flatMap((name) => {
      const tool = byName(name);
      return tool ? [tool] : [];
    });
    return pickTool(request, allowed, choice.allowed_tools.mode === 'required');
  }
  if (typeof choice === 'object' && choice.type === 'custom') return undefined;
  return pickTool(request, tools, choice === 'required');
};

const toolCallFor = (
  request: ChatRequest,
  tool: ChatCompletionFunctionTool,
): ChatCompletionMessageFunctionToolCall => {
  const said = textOf(lastUserMessage(request.messages)?.content);
  const builtIn = builtInTools().find((known) => known.name === tool.function.name);
  const commanded = toolCommand(request.messages);
  const args = JSON.stringify(
    (commanded?.name === tool.function.name ? commanded.args : undefined) ??
      builtIn?.args?.(request.messages, said) ??
      exampleForSchema(tool.function.parameters ?? { type: 'object', properties: {} }, said),
  );
  const id = `call_${sha256(JSON.stringify([request.messages, tool.function.name, args])).slice(0, 24)}`;
  return { id, type: 'function', function: { name: tool.function.name, arguments: args } };
};

/** A responder's whole answer to a request of its own (a memory extraction), if one has it. */
const responderAnswer = (messages: readonly ChatCompletionMessageParam[]): string | undefined => {
  for (const responder of offlineResponders()) {
    const answer = responder.answer?.(messages);
    if (answer !== undefined) return answer;
  }
  return undefined;
};

/** Content for `response_format`: JSON valid for the given schema, or a JSON object wrapping the text reply. */
const formatted = (request: ChatRequest, reply: string): string => {
  const format = request.response_format;
  if (format?.type === 'json_schema')
    return JSON.stringify(
      exampleForSchema(format.json_schema.schema ?? {}, textOf(lastUserMessage(request.messages)?.content)),
    );
  if (format?.type === 'json_object') return JSON.stringify({ reply });
  return reply;
};

const stopSequences = (stop: ChatRequest['stop']): string[] =>
  (typeof stop === 'string' ? [stop] : (stop ?? [])).filter((sequence) => sequence.length > 0);

/** Cuts at the earliest stop sequence, then at the token limit: the finish reason says which, if any, applied. */
const limit = (request: ChatRequest, text: string): { content: string; finishReason: 'stop' | 'length' } => {
  let content = text;
  for (const sequence of stopSequences(request.stop)) {
    const at = content.indexOf(sequence);
    if (at >= 0) content = content.slice(0, at);
  }
  const maxTokens = request.max_completion_tokens ?? request.max_tokens;
  if (typeof maxTokens === 'number') {
    const truncated = truncateToTokens(content, maxTokens);
    if (truncated !== content) return { content: truncated, finishReason: 'length' };
  }
  return { content, finishReason: 'stop' };
};

/** The complete answer to a request; the streamed answer is this, cut in pieces. */
export const offlineChat = (request: ChatRequest): ChatResult => {
  const inputTokens = countMessageTokens(request.messages, request.tools, request.tool_choice);
  const tool = chosenTool(request);
  if (tool) {
    // A tool call is short and always complete: the token limit and stop sequences apply to text only.
    const call = toolCallFor(request, tool);
    return {
      message: { role: 'assistant', content: null, refusal: null, tool_calls: [call] },
      finishReason: 'tool_calls',
      usage: {
        inputTokens,
        cachedInputTokens: 0,
        outputTokens: countTokens(call.function.name) + countTokens(call.function.arguments),
      },
    };
  }
  // A responder's whole answer (a memory extraction's candidates JSON) wins whatever `response_format` asks: it is
  // the JSON wanted.
  const reply = responderAnswer(request.messages) ?? formatted(request, textReply(request.messages));
  const { content, finishReason } = limit(request, reply);
  return {
    message: { role: 'assistant', content, refusal: null },
    finishReason,
    usage: { inputTokens, cachedInputTokens: 0, outputTokens: countTokens(content) },
  };
};

/** Word-sized pieces whose concatenation is exactly `text` (each word carries its trailing whitespace). */
export const splitWords = (text: string): string[] => [...wordsOf(text)];

const fragments = (text: string, size: number): string[] => {
  const chars = Array.from(text);
  const pieces: string[] = [];
  for (let index = 0; index < chars.length; index += size)
    pieces.push(chars.slice(index, index + size).join(''));
  return pieces;
};

/** Word-sized pieces of `text`, as splitWords cuts it, one at a time (a long answer is never held twice). */
function* wordsOf(text: string): Generator<string> {
  for (const [piece] of text.matchAll(/\S*\s*/gu)) if (piece !== '') yield piece;
}

/** The deltas of an answer, made as they are pulled: a stalled client holds one, not the whole answer cut up. */
function* deltasOf(result: ChatResult): Generator<ChatDelta> {
  const { message, finishReason, usage } = result;
  const call = message.tool_calls?.[0];
  if (call?.type === 'function') {
    yield {
      delta: {
        role: 'assistant',
        content: null,
        tool_calls: [
          { index: 0, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } },
        ],
      },
      finishReason: null,
    };
    for (const fragment of fragments(call.function.arguments, ARGUMENT_FRAGMENT))
      yield {
        delta: { tool_calls: [{ index: 0, function: { arguments: fragment } }] },
        finishReason: null,
      };
  } else {
    yield { delta: { role: 'assistant', content: '' }, finishReason: null };
    for (const word of wordsOf(message.content ?? '')) yield { delta: { content: word }, finishReason: null };
  }
  yield { delta: {}, finishReason, usage };
}

/** Streams {@link offlineChat}'s answer piece by piece; an aborted `signal` ends it with the signal's reason. */
export async function* offlineChatStream(
  request: ChatRequest,
  signal: AbortSignal,
  options: OfflineChatOptions = {},
): AsyncGenerator<ChatDelta> {
  signal.throwIfAborted();
  yield* streamChatResult(offlineChat(request), signal, options);
}

/** Streams a computed answer piece by piece (word by word, tool-call arguments in fragments). */
export async function* streamChatResult(
  result: ChatResult,
  signal: AbortSignal,
  options: OfflineChatOptions = {},
): AsyncGenerator<ChatDelta> {
  const delayMs = options.wordDelayMs ?? 0;
  let index = 0;
  for (const delta of deltasOf(result)) {
    if (delayMs > 0 && index > 0) {
      try {
        await sleep(delayMs, undefined, { signal });
      } catch (error) {
        signal.throwIfAborted();
        throw error;
      }
    }
    signal.throwIfAborted();
    yield delta;
    index++;
  }
}
