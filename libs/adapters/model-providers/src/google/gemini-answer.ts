// The Gemini API's answers in the port's terms (https://ai.google.dev/api/generate-content#generatecontentresponse):
// the first candidate's parts as the assistant message (text, `functionCall` parts as tool calls with ids of ours when
// Gemini gave none), its finishReason as the chat-completions one, `usageMetadata` as token usage; a stream's chunks
// (each a GenerateContentResponse) as deltas; and Google's error envelope `{ error: { code, message, status } }` as the
// reason of a refusal.
import type { ChatCompletionMessageFunctionToolCall } from 'openai/resources/chat/completions';
import { errorJson } from '../upstream-http.js';
import { toolCallId } from '../native/native-calls.js';
import {
  saysContextLength,
  type ChatDelta,
  type ChatResult,
  type TokenUsage,
  type UpstreamReason,
} from '../provider.port.js';
import type { GeminiContent, GeminiPart } from './gemini-request.js';

export interface GeminiUsage {
  promptTokenCount?: number;
  cachedContentTokenCount?: number;
  candidatesTokenCount?: number;
  toolUsePromptTokenCount?: number;
  thoughtsTokenCount?: number;
  totalTokenCount?: number;
}

export interface GeminiResponse {
  candidates?: { content?: GeminiContent; finishReason?: string; index?: number }[];
  promptFeedback?: { blockReason?: string };
  usageMetadata?: GeminiUsage;
  modelVersion?: string;
  responseId?: string;
  /** Sent in place of a chunk when a stream fails after it started. */
  error?: { code?: number; message?: string; status?: string };
}

/** Finish reasons that mean Gemini withheld (part of) the answer. */
const FILTERED = new Set([
  'SAFETY',
  'RECITATION',
  'BLOCKLIST',
  'PROHIBITED_CONTENT',
  'SPII',
  'IMAGE_SAFETY',
  'LANGUAGE',
]);

/** A finish reason as chat completions says it; `MALFORMED_FUNCTION_CALL`, `OTHER` and unknown ones read as a stop. */
export function finishOf(reason: string | undefined, calledTools: boolean): ChatResult['finishReason'] {
  if (calledTools) return 'tool_calls';
  if (reason === 'MAX_TOKENS') return 'length';
  if (reason && FILTERED.has(reason)) return 'content_filter';
  return 'stop';
}

/** Input counts the cached tokens (Gemini's prompt count includes them) and the tool-use prompt; output the thoughts. */
export const usageOf = (usage: GeminiUsage | undefined): TokenUsage => ({
  inputTokens: (usage?.promptTokenCount ?? 0) + (usage?.toolUsePromptTokenCount ?? 0),
  cachedInputTokens: usage?.cachedContentTokenCount ?? 0,
  outputTokens: (usage?.candidatesTokenCount ?? 0) + (usage?.thoughtsTokenCount ?? 0),
});

/** A `functionCall` part as a tool call; its signature is kept where Google's OpenAI compatibility keeps it. */
function toolCallOf(part: GeminiPart): ChatCompletionMessageFunctionToolCall {
  const call = part.functionCall!;
  return {
    id: call.id || toolCallId(),
    type: 'function',
    function: { name: call.name, arguments: JSON.stringify(call.args ?? {}) },
    ...(part.thoughtSignature
      ? { extra_content: { google: { thought_signature: part.thoughtSignature } } }
      : {}),
  };
}

/** The visible text of parts (thoughts left out). */
const textOf = (parts: readonly GeminiPart[]): string =>
  parts.map((part) => (part.text !== undefined && !part.thought ? part.text : '')).join('');

/** A whole answer as the port's result; a prompt Gemini blocked is an empty answer stopped by its filter. */
export function chatResultOf(response: GeminiResponse): ChatResult | undefined {
  const candidate = response.candidates?.[0];
  if (!candidate) {
    if (!response.promptFeedback?.blockReason) return undefined;
    return {
      message: { role: 'assistant', content: '', refusal: null },
      finishReason: 'content_filter',
      usage: usageOf(response.usageMetadata),
    };
  }
  const parts = candidate.content?.parts ?? [];
  const toolCalls = parts.filter((part) => part.functionCall).map(toolCallOf);
  const text = textOf(parts);
  return {
    message: {
      role: 'assistant',
      content: text || (toolCalls.length ? null : ''),
      refusal: null,
      ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
    },
    finishReason: finishOf(candidate.finishReason, toolCalls.length > 0),
    usage: usageOf(response.usageMetadata),
  };
}

/** Reads a stream's chunks in order: the deltas of each, and the finish with the last usage when the stream ends. */
export class GeminiStreamReader {
  private toolCalls = 0;
  private started = false;
  private finishReason: string | undefined;
  private blocked = false;
  private usage: GeminiUsage | undefined;

  /** The deltas one chunk carries (text, whole tool calls); empty when it carries only usage. */
  read(chunk: GeminiResponse): ChatDelta[] {
    if (chunk.usageMetadata) this.usage = chunk.usageMetadata;
    if (chunk.promptFeedback?.blockReason) this.blocked = true;
    const candidate = chunk.candidates?.[0];
    if (candidate?.finishReason) this.finishReason = candidate.finishReason;
    const parts = candidate?.content?.parts ?? [];
    const deltas: ChatDelta[] = [];
    const role = () => (this.started ? {} : ((this.started = true), { role: 'assistant' as const }));
    const text = textOf(parts);
    if (text) deltas.push({ delta: { ...role(), content: text }, finishReason: null });
    const calls = parts.filter((part) => part.functionCall);
    if (calls.length)
      deltas.push({
        delta: {
          ...role(),
          tool_calls: calls.map((part) => ({ index: this.toolCalls++, ...toolCallOf(part) })),
        },
        finishReason: null,
      });
    return deltas;
  }

  /** The last delta: why the answer ended, and the usage of the whole call. */
  end(): ChatDelta {
    return {
      delta: {},
      finishReason: this.blocked ? 'content_filter' : finishOf(this.finishReason, this.toolCalls > 0),
      usage: usageOf(this.usage),
    };
  }
}

interface GoogleError {
  code?: number;
  message?: string;
  status?: string;
  details?: { reason?: string; retryDelay?: string }[];
}

const errorOf = (body: string): GoogleError | undefined => errorJson(body).error as GoogleError | undefined;

/**
 * Google's error envelope (https://ai.google.dev/gemini-api/docs/troubleshooting): a wrong key is a 400
 * INVALID_ARGUMENT with the reason API_KEY_INVALID (our fault, not the client's), a prompt over the model's limit a
 * 400 saying the input token count exceeds the maximum, an unknown model a 404 NOT_FOUND; 500 INTERNAL and 504
 * DEADLINE_EXCEEDED are left to the status (another try may work).
 */
export function googleReason(status: number, body: string): UpstreamReason | undefined {
  const error = errorOf(body);
  if (status === 429 || error?.status === 'RESOURCE_EXHAUSTED') return 'rate_limit';
  if (status === 503 || error?.status === 'UNAVAILABLE') return 'overloaded';
  if (
    status === 401 ||
    status === 403 ||
    error?.status === 'UNAUTHENTICATED' ||
    error?.status === 'PERMISSION_DENIED' ||
    error?.details?.some((detail) => detail.reason === 'API_KEY_INVALID')
  )
    return 'auth';
  if (
    status === 400 &&
    (saysContextLength(error?.message) || /input token count/i.test(error?.message ?? ''))
  )
    return 'context_length';
  if (status === 400 || status === 404) return 'bad_request';
  return undefined;
}

/** How long a 429 asked to wait: Google says it in a RetryInfo detail (`retryDelay: "30s"`), not a header. */
export function googleRetryAfterMs(body: string): number | undefined {
  const delay = errorOf(body)?.details?.find((detail) => detail.retryDelay)?.retryDelay;
  const seconds = delay ? Number.parseFloat(delay) : Number.NaN;
  return Number.isFinite(seconds) && seconds >= 0 ? Math.round(seconds * 1000) : undefined;
}
