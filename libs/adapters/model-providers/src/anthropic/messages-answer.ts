// Anthropic's answers read as the port's results (https://docs.anthropic.com/en/api/messages and
// /en/docs/build-with-claude/streaming): a `message` as a ChatResult, its stream events as ChatDeltas, its usage (cache
// reads and writes counted apart from `input_tokens`) as TokenUsage, and its error envelope
// `{ type: "error", error: { type, message } }` as the reason an upstream refused.
import type { ChatCompletionMessageToolCall } from 'openai/resources/chat/completions';
import { errorJson } from '../upstream-http.js';
import {
  saysContextLength,
  UpstreamError,
  type ChatDelta,
  type ChatResult,
  type TokenUsage,
  type UpstreamReason,
} from '../provider.port.js';

/** Usage as Anthropic reports it (`message_delta` sends the cumulative counts, some of them null). */
export interface WireUsage {
  readonly input_tokens?: number | null;
  readonly output_tokens?: number | null;
  readonly cache_creation_input_tokens?: number | null;
  readonly cache_read_input_tokens?: number | null;
}

interface WireBlock {
  readonly type: string;
  readonly text?: string;
  readonly id?: string;
  readonly name?: string;
  readonly input?: unknown;
}

export interface WireMessage {
  readonly type?: string;
  readonly content?: readonly WireBlock[];
  readonly stop_reason?: string | null;
  readonly usage?: WireUsage;
}

/** Anthropic counts cache reads and writes apart from `input_tokens`; the port counts them in `inputTokens`. */
export function toUsage(usage: WireUsage | undefined): TokenUsage {
  const read = usage?.cache_read_input_tokens ?? 0;
  const written = usage?.cache_creation_input_tokens ?? 0;
  return {
    inputTokens: (usage?.input_tokens ?? 0) + read + written,
    cachedInputTokens: read,
    outputTokens: usage?.output_tokens ?? 0,
    cacheWriteTokens: written,
  };
}

/** `pause_turn` (a server tool paused) ends the turn as a stop; the context window's own limit is a length stop. */
export function finishOf(stopReason: string | null | undefined): ChatResult['finishReason'] {
  switch (stopReason) {
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return 'tool_calls';
    case 'refusal':
      return 'content_filter';
    default:
      return 'stop';
  }
}

/** A `message` answer as the port's result: its text blocks joined, its tool_use blocks as tool calls. */
export function toChatResult(answer: WireMessage, modelKey: string): ChatResult {
  if (answer?.type !== 'message' || !Array.isArray(answer.content))
    throw new UpstreamError('rejected', `upstream of model '${modelKey}' answered no message`);
  let text = '';
  const calls: ChatCompletionMessageToolCall[] = [];
  for (const block of answer.content) {
    if (block.type === 'text') text += block.text ?? '';
    else if (block.type === 'tool_use')
      calls.push({
        id: block.id ?? '',
        type: 'function',
        function: { name: block.name ?? '', arguments: JSON.stringify(block.input ?? {}) },
      });
  }
  return {
    message: {
      role: 'assistant',
      content: text || (calls.length ? null : ''),
      refusal: null,
      ...(calls.length ? { tool_calls: calls } : {}),
    },
    finishReason: finishOf(answer.stop_reason),
    usage: toUsage(answer.usage),
  };
}

/** Why Anthropic refused, from its error envelope; undefined: the status says (reasonOfStatus). */
export function anthropicReason(status: number, body: string): UpstreamReason | undefined {
  const error = errorJson(body).error as { type?: unknown; message?: unknown } | undefined;
  return reasonOfError(error?.type, status, typeof error?.message === 'string' ? error.message : undefined);
}

function reasonOfError(type: unknown, status: number | undefined, message: string | undefined) {
  if (type === 'overloaded_error' || status === 529) return 'overloaded';
  if (type === 'rate_limit_error') return 'rate_limit';
  if ((type === 'invalid_request_error' || status === 400) && saysContextLength(message))
    return 'context_length';
  return undefined;
}

/** One parsed stream event (the fields the decoder reads). */
export interface WireEvent {
  readonly type: string;
  readonly index?: number;
  readonly message?: WireMessage;
  readonly content_block?: WireBlock;
  readonly delta?: {
    readonly type?: string;
    readonly text?: string;
    readonly partial_json?: string;
    readonly stop_reason?: string | null;
  };
  readonly usage?: WireUsage;
  readonly error?: { readonly type?: string; readonly message?: string };
}

/**
 * Anthropic's stream events as chat deltas: text and tool-call pieces as they come (a tool call's index counts the
 * tool_use blocks, as chat completions counts calls), and at `message_stop` one last delta with the finish reason and
 * the usage (`message_start`'s, updated by the cumulative counts of `message_delta`). An `error` event throws.
 */
export class MessagesStreamDecoder {
  private usage: WireUsage = {};
  private stopReason: string | null | undefined;
  /** Tool-call index of each content block index that is a tool_use. */
  private readonly tools = new Map<number, number>();
  done = false;

  constructor(private readonly modelKey: string) {}

  decode(event: WireEvent): ChatDelta | undefined {
    switch (event.type) {
      case 'message_start':
        this.usage = { ...event.message?.usage };
        return undefined;
      case 'content_block_start':
        return this.start(event);
      case 'content_block_delta':
        return this.piece(event);
      case 'message_delta':
        this.stopReason = event.delta?.stop_reason ?? this.stopReason;
        this.usage = { ...this.usage, ...definedOf(event.usage) };
        return undefined;
      case 'message_stop':
        this.done = true;
        return { delta: {}, finishReason: finishOf(this.stopReason), usage: toUsage(this.usage) };
      case 'error':
        throw new UpstreamError(
          'rejected',
          `upstream of model '${this.modelKey}' sent an error mid-stream`,
          undefined,
          undefined,
          reasonOfError(event.error?.type, undefined, event.error?.message),
        );
      default:
        // ping, content_block_stop, and event types added later: nothing to pass on.
        return undefined;
    }
  }

  private start(event: WireEvent): ChatDelta | undefined {
    const block = event.content_block;
    if (block?.type === 'text') return block.text ? text(block.text) : undefined;
    if (block?.type !== 'tool_use') return undefined;
    const index = this.tools.size;
    this.tools.set(event.index ?? -1, index);
    return toolCall({ index, id: block.id, type: 'function', function: { name: block.name, arguments: '' } });
  }

  private piece(event: WireEvent): ChatDelta | undefined {
    const delta = event.delta;
    if (delta?.type === 'text_delta') return delta.text ? text(delta.text) : undefined;
    if (delta?.type !== 'input_json_delta' || !delta.partial_json) return undefined;
    const index = this.tools.get(event.index ?? -1);
    return index === undefined ? undefined : toolCall({ index, function: { arguments: delta.partial_json } });
  }
}

const text = (content: string): ChatDelta => ({ delta: { content }, finishReason: null });

const toolCall = (call: NonNullable<ChatDelta['delta']['tool_calls']>[number]): ChatDelta => ({
  delta: { tool_calls: [call] },
  finishReason: null,
});

/** The counts `message_delta` says (a null there means "unchanged"). */
function definedOf(usage: WireUsage | undefined): WireUsage {
  const defined: Record<string, number> = {};
  for (const [field, value] of Object.entries(usage ?? {}))
    if (typeof value === 'number') defined[field] = value;
  return defined;
}
