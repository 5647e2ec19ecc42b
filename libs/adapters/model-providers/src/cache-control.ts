// Prompt-cache marks (Anthropic's `cache_control`) as a chat request carries them, in LiteLLM's convention for the
// chat-completions format: on a content part (system, user or tool text, an image), on a tool, on a tool call, or on a
// whole message (meaning its last block). The Anthropic provider sends them where they were; every other upstream gets
// the request without them (an OpenAI-compatible server may refuse a field it does not know).
import type { ChatRequest } from './provider.port.js';

/** Anthropic's cache breakpoint: `ephemeral`, five minutes unless `ttl` says an hour. */
export interface CacheControl {
  readonly type: 'ephemeral';
  readonly ttl?: '5m' | '1h';
}

const MARK = 'cache_control';

/** Whether `value` is an object carrying a `cache_control` field. */
export const isCacheMarked = (value: unknown): value is { cache_control: unknown } =>
  typeof value === 'object' && value !== null && MARK in value;

/** The mark `value` carries, when it is one (an object with a `type`). */
export function cacheControlOf(value: unknown): CacheControl | undefined {
  if (!isCacheMarked(value)) return undefined;
  const mark = value.cache_control;
  return typeof mark === 'object' && mark !== null && typeof (mark as { type?: unknown }).type === 'string'
    ? (mark as CacheControl)
    : undefined;
}

const unmarked = <T>(value: T): T => {
  if (!isCacheMarked(value)) return value;
  const { cache_control: _mark, ...rest } = value;
  return rest as T;
};

const anyMarked = (values: unknown): boolean => {
  if (!Array.isArray(values)) return false;
  for (const value of values) if (isCacheMarked(value)) return true;
  return false;
};

const unmarkedAll = <T>(values: readonly T[]): T[] | undefined =>
  anyMarked(values) ? values.map(unmarked) : undefined;

/** Whether a message carries a mark anywhere (checked before anything is copied: most carry none). */
const carriesMark = (message: object): boolean =>
  isCacheMarked(message) ||
  anyMarked((message as { content?: unknown }).content) ||
  anyMarked((message as { tool_calls?: unknown }).tool_calls);

function unmarkedMessage<T extends object>(message: T): T {
  let copy = unmarked(message);
  const { content, tool_calls: calls } = message as { content?: unknown; tool_calls?: unknown };
  const parts = Array.isArray(content) ? unmarkedAll(content) : undefined;
  if (parts) copy = { ...copy, content: parts };
  const toolCalls = Array.isArray(calls) ? unmarkedAll(calls) : undefined;
  if (toolCalls) copy = { ...copy, tool_calls: toolCalls };
  return copy;
}

/**
 * The request without cache marks. Only what carries one is copied (the others stay the same objects, so a frozen
 * history keeps its serialised bytes); a request without any is returned as it is.
 */
export function withoutCacheControl<T extends ChatRequest>(request: T): T {
  let messages: T['messages'] | undefined;
  const sent = request.messages;
  for (let index = 0; index < sent.length; index++) {
    if (!carriesMark(sent[index]!)) continue;
    messages ??= [...sent];
    messages[index] = unmarkedMessage(sent[index]!);
  }
  const tools = anyMarked(request.tools) ? request.tools!.map(unmarked) : undefined;
  if (!messages && !tools) return request;
  return { ...request, ...(messages ? { messages } : {}), ...(tools ? { tools } : {}) };
}
