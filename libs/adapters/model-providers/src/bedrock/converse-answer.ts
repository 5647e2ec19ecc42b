// Bedrock's Converse answers in the chat-completions shape: the answer's message (text and tool calls), its stop
// reason, its usage (Bedrock counts cache reads and writes apart from `inputTokens`; ours include them), the events of
// ConverseStream as deltas, and why it refused (`x-amzn-errortype`, or an exception event mid-stream). Shapes from the
// API reference (API_runtime_Converse, API_runtime_ConverseStream) and the `@aws-sdk/client-bedrock-runtime` models
// (ConverseResponse, TokenUsage, StopReason, ConverseStreamOutput, the exceptions' HTTP statuses).
import type { ChatCompletionMessageToolCall } from 'openai/resources/chat/completions';
import {
  saysContextLength,
  UpstreamError,
  type ChatDelta,
  type ChatResult,
  type TokenUsage,
  type UpstreamReason,
} from '../provider.port.js';
import { errorJson } from '../upstream-http.js';

export interface ConverseUsage {
  readonly inputTokens?: number;
  readonly outputTokens?: number;
  readonly cacheReadInputTokens?: number;
  readonly cacheWriteInputTokens?: number;
}

interface AnswerBlock {
  readonly text?: string;
  readonly toolUse?: { readonly toolUseId: string; readonly name: string; readonly input?: unknown };
}

export interface ConverseAnswer {
  readonly output?: { readonly message?: { readonly content?: readonly AnswerBlock[] } };
  readonly stopReason?: string;
  readonly usage?: ConverseUsage;
}

/** Bedrock's stop reasons as chat completions says them (an unknown one is a natural stop). */
export function finishOf(stopReason: string | undefined): ChatResult['finishReason'] {
  switch (stopReason) {
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return 'tool_calls';
    case 'guardrail_intervened':
    case 'content_filtered':
      return 'content_filter';
    default:
      return 'stop';
  }
}

export function toUsage(usage: ConverseUsage | undefined): TokenUsage {
  const cacheRead = usage?.cacheReadInputTokens ?? 0;
  const cacheWrite = usage?.cacheWriteInputTokens ?? 0;
  return {
    inputTokens: (usage?.inputTokens ?? 0) + cacheRead + cacheWrite,
    cachedInputTokens: cacheRead,
    outputTokens: usage?.outputTokens ?? 0,
    ...(cacheWrite ? { cacheWriteTokens: cacheWrite } : {}),
  };
}

/** A non-streamed Converse answer as a chat result. */
export function chatResult(answer: ConverseAnswer, modelKey: string): ChatResult {
  const blocks = answer.output?.message?.content;
  if (!blocks) throw new UpstreamError('rejected', `upstream of model '${modelKey}' answered no message`);
  let text = '';
  const toolCalls: ChatCompletionMessageToolCall[] = [];
  for (const block of blocks) {
    if (typeof block.text === 'string') text += block.text;
    else if (block.toolUse)
      toolCalls.push({
        id: block.toolUse.toolUseId,
        type: 'function',
        function: { name: block.toolUse.name, arguments: JSON.stringify(block.toolUse.input ?? {}) },
      });
  }
  return {
    message: {
      role: 'assistant',
      content: text || (toolCalls.length ? null : ''),
      refusal: null,
      ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
    },
    finishReason: finishOf(answer.stopReason),
    usage: toUsage(answer.usage),
  };
}

/** The HTTP status and reason of each exception Bedrock names (its error type, or a stream's exception event). */
const EXCEPTIONS: Readonly<Record<string, readonly [number | undefined, UpstreamReason | undefined]>> = {
  ThrottlingException: [429, 'rate_limit'],
  ServiceQuotaExceededException: [400, 'rate_limit'],
  ModelNotReadyException: [429, 'overloaded'],
  ServiceUnavailableException: [503, 'overloaded'],
  ValidationException: [400, 'bad_request'],
  AccessDeniedException: [403, 'auth'],
  UnrecognizedClientException: [403, 'auth'],
  InvalidSignatureException: [403, 'auth'],
  ExpiredTokenException: [403, 'auth'],
  InternalServerException: [500, undefined],
  ModelStreamErrorException: [424, undefined],
  ModelTimeoutException: [408, undefined],
};

/** `ValidationException:http://internal.amazon.com/coral/…` (or a stream's `validationException`) → its name. */
const exceptionName = (type: string): string => {
  const name = type.split(':')[0]!.split('#').at(-1)!;
  return name.charAt(0).toUpperCase() + name.slice(1);
};

/** Why Bedrock refused, from its error type and message (a validation error about the input's length: context). */
export function bedrockReason(
  status: number,
  body: string,
  headers?: Readonly<Record<string, string | string[] | undefined>>,
): UpstreamReason | undefined {
  const header = headers?.['x-amzn-errortype'];
  const json = errorJson(body);
  const type = (Array.isArray(header) ? header[0] : header) ?? (json.__type as string | undefined);
  const message = (json.message ?? json.Message) as string | undefined;
  if ((status === 400 || status === 413) && saysContextLength(message)) return 'context_length';
  const known = type ? EXCEPTIONS[exceptionName(type)] : undefined;
  return known ? known[1] : undefined;
}

/** An exception event of ConverseStream (`:exception-type`) as the UpstreamError its HTTP answer would have been. */
export function streamException(type: string, body: string, modelKey: string): UpstreamError {
  const [status] = EXCEPTIONS[exceptionName(type)] ?? [];
  const reason = status === undefined ? undefined : bedrockReason(status, body, { 'x-amzn-errortype': type });
  return new UpstreamError(
    'rejected',
    `upstream of model '${modelKey}' sent ${exceptionName(type)} mid-stream`,
    status === 424 ? undefined : status,
    undefined,
    reason,
  );
}

interface StreamEvent {
  readonly contentBlockIndex?: number;
  readonly start?: { readonly toolUse?: { readonly toolUseId: string; readonly name: string } };
  readonly delta?: { readonly text?: string; readonly toolUse?: { readonly input?: string } };
  readonly stopReason?: string;
  readonly usage?: ConverseUsage;
}

/** ConverseStream's events as deltas: tool calls numbered in their order, text as content, the stop, the usage. */
export class ConverseStreamDeltas {
  /** Tool call index by content block index. */
  private readonly tools = new Map<number, number>();

  delta(eventType: string, event: StreamEvent): ChatDelta | undefined {
    switch (eventType) {
      case 'messageStart':
        return { delta: { role: 'assistant' }, finishReason: null };
      case 'contentBlockStart': {
        const toolUse = event.start?.toolUse;
        if (!toolUse) return undefined;
        const index = this.tools.size;
        this.tools.set(event.contentBlockIndex ?? index, index);
        return {
          delta: {
            tool_calls: [
              {
                index,
                id: toolUse.toolUseId,
                type: 'function',
                function: { name: toolUse.name, arguments: '' },
              },
            ],
          },
          finishReason: null,
        };
      }
      case 'contentBlockDelta': {
        if (typeof event.delta?.text === 'string')
          return { delta: { content: event.delta.text }, finishReason: null };
        const input = event.delta?.toolUse?.input;
        const index = this.tools.get(event.contentBlockIndex ?? -1);
        if (input === undefined || index === undefined) return undefined;
        return { delta: { tool_calls: [{ index, function: { arguments: input } }] }, finishReason: null };
      }
      case 'messageStop':
        return { delta: {}, finishReason: finishOf(event.stopReason) };
      case 'metadata':
        return { delta: {}, finishReason: null, usage: toUsage(event.usage) };
      default:
        return undefined;
    }
  }
}
