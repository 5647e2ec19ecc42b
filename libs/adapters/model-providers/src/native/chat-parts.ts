// What the providers of vendors' native APIs (google, ollama) share in reading a chat-completions request: refusing
// what the vendor cannot take (a 400 naming the field), a message's text, a data URL's media type and bytes, a tool
// call's arguments as the object the vendors take, the sampling fields, and a vendor body without its unset fields.
import type {
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionMessageToolCall,
} from 'openai/resources/chat/completions';
import { ValidationError } from '#kernel/thread-kit';
import type { ChatRequest } from '../provider.port.js';

export const refuse = (code: string, message: string, param?: string): never => {
  throw new ValidationError(code, message, param);
};

/** A data URL's media type and base64 data; undefined for any other URL. */
export function dataUrl(url: string): { mediaType: string; base64: string } | undefined {
  const match = /^data:([^;,]+)(?:;[^,]*)?;base64,(.*)$/s.exec(url);
  return match ? { mediaType: match[1]!, base64: match[2]! } : undefined;
}

/** The text of a message's content: a string, or its text parts joined by a newline. */
export const textOf = (
  content: string | readonly { type: string; text?: string }[] | null | undefined,
): string =>
  typeof content === 'string'
    ? content
    : (content ?? []).map((part) => (part.type === 'text' ? (part.text ?? '') : '')).join('\n');

/** A function tool call; `vendor` names who cannot take the other kinds. */
export function functionCall(
  call: ChatCompletionMessageToolCall,
  param: string,
  vendor: string,
): ChatCompletionMessageFunctionToolCall {
  return call.type === 'function'
    ? call
    : refuse('unsupported_tool_call', `${vendor} takes function tool calls only`, param);
}

/** A tool call's JSON arguments as the object the vendors take (an empty string: none). */
export function argumentsOf(
  call: ChatCompletionMessageFunctionToolCall,
  param: string,
): Record<string, unknown> {
  let args: unknown;
  try {
    args = JSON.parse(call.function.arguments || '{}');
  } catch {
    // Refused below.
  }
  return typeof args === 'object' && args !== null && !Array.isArray(args)
    ? (args as Record<string, unknown>)
    : refuse('invalid_tool_arguments', 'tool call arguments must be a JSON object', param);
}

/** The sampling fields of a request, each as the vendors have it (their names differ). */
const SAMPLING = {
  maxTokens: (request: ChatRequest) => request.max_completion_tokens ?? request.max_tokens ?? undefined,
  temperature: (request: ChatRequest) => request.temperature ?? undefined,
  topP: (request: ChatRequest) => request.top_p ?? undefined,
  topK: (request: ChatRequest) => request.top_k,
  stop: (request: ChatRequest) => {
    const stop = typeof request.stop === 'string' ? [request.stop] : request.stop;
    return stop?.length ? [...stop] : undefined;
  },
  seed: (request: ChatRequest) => request.seed ?? undefined,
  presencePenalty: (request: ChatRequest) => request.presence_penalty ?? undefined,
  frequencyPenalty: (request: ChatRequest) => request.frequency_penalty ?? undefined,
};

/** The sampling fields the request sets, under the vendor's `names`. */
export function samplingFields(
  request: ChatRequest,
  names: Readonly<Record<keyof typeof SAMPLING, string>>,
): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(SAMPLING).flatMap(([field, read]) => {
      const value = read(request);
      return value === undefined ? [] : [[names[field as keyof typeof SAMPLING], value]];
    }),
  );
}

/** The fields that are set; undefined when none is. */
export function setFields(fields: Readonly<Record<string, unknown>>): Record<string, unknown> | undefined {
  const set = Object.entries(fields).filter(([, value]) => value !== undefined);
  return set.length ? Object.fromEntries(set) : undefined;
}
