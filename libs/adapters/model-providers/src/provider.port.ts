// The model provider port: what the gateway and the core LLM endpoints ask of a model. Requests and results use the
// chat-completions wire shapes (the `openai` SDK's types), so the gateway passes fields through unchanged.
import type {
  ChatCompletionChunk,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessage,
} from 'openai/resources/chat/completions';
import type { ModelConfig } from './model.js';

/** A chat request as sent upstream: the client's fields minus `model` and `stream` (the provider sets those). */
export type ChatRequest = Omit<
  ChatCompletionCreateParamsNonStreaming,
  'model' | 'stream' | 'stream_options' | 'n'
> & {
  /** Not in the common format; sent to upstreams that take it (vLLM, Ollama). */
  readonly top_k?: number;
};

export interface TokenUsage {
  /** All input tokens, cached reads included. */
  readonly inputTokens: number;
  readonly cachedInputTokens: number;
  readonly outputTokens: number;
  /** Input tokens written to the upstream's prompt cache (Anthropic, Bedrock), counted in `inputTokens`. */
  readonly cacheWriteTokens?: number;
}

export interface ChatResult {
  readonly message: ChatCompletionMessage;
  readonly finishReason: 'stop' | 'length' | 'tool_calls' | 'content_filter';
  readonly usage: TokenUsage;
}

/** One streamed piece: a delta as in `chat.completion.chunk`; the last one carries the finish reason and usage. */
export interface ChatDelta {
  readonly delta: ChatCompletionChunk.Choice.Delta;
  readonly finishReason: ChatResult['finishReason'] | null;
  readonly usage?: TokenUsage;
}

export interface EmbeddingResult {
  readonly vectors: number[][];
  readonly inputTokens: number;
}

export interface RerankResult {
  /** One relevance score per document, in the documents' order; higher is more relevant. */
  readonly scores: number[];
  readonly inputTokens: number;
}

export const ASPECT_RATIOS = ['1:1', '4:3', '3:4', '16:9', '9:16'] as const;
export const RESOLUTIONS = ['1K', '2K', '4K'] as const;

export interface ImageRequest {
  readonly prompt: string;
  readonly aspectRatio: (typeof ASPECT_RATIOS)[number];
  readonly resolution: (typeof RESOLUTIONS)[number];
  /** Inpainting mask as a data URL. */
  readonly mask?: string;
  readonly imageConfig?: Readonly<Record<string, unknown>>;
}

export interface ImageResult {
  readonly base64: string;
  readonly mimeType: string;
  readonly width: number;
  readonly height: number;
}

/** Speech synthesis: one voice, or (multi-speaker) at most 2 speakers each with a voice, named in the text. */
export interface SpeechRequest {
  readonly text: string;
  readonly voiceName?: string;
  readonly speakers?: readonly { readonly speaker: string; readonly voiceName: string }[];
}

export interface SpeechResult {
  readonly audio: Uint8Array;
  readonly mimeType: string;
}

export interface TranscriptionRequest {
  readonly audio: Uint8Array;
  readonly mimeType: string;
  readonly prompt?: string;
}

export interface TranscriptionResult {
  readonly text: string;
}

/**
 * Why an upstream refused, read from its status and error body by each provider type, so that every vendor's
 * failures reach every client protocol the same way: `rate_limit` (429), `overloaded` (Anthropic's 529, a 503),
 * `context_length` (the prompt does not fit), `bad_request` (another 4xx about the request), `auth` (our upstream key
 * is wrong or lacks rights: the gateway's fault, never the client's).
 */
export const UPSTREAM_REASONS = [
  'rate_limit',
  'overloaded',
  'context_length',
  'bad_request',
  'auth',
] as const;
export type UpstreamReason = (typeof UPSTREAM_REASONS)[number];

/** An upstream failure, mapped by the gateway to the client's protocol (model-gateway.ts, toGatewayError). */
export class UpstreamError extends Error {
  constructor(
    readonly kind: 'timeout' | 'unavailable' | 'rejected',
    message: string,
    /** The upstream's HTTP status, when it answered. */
    readonly upstreamStatus?: number,
    /** How long the upstream asked to wait before another try (its `Retry-After`), when it said. */
    readonly retryAfterMs?: number,
    /** Why it refused, when the provider could tell (otherwise read from the status alone). */
    readonly reason?: UpstreamReason,
    /** More for the client than the reason says, in our own words (never the upstream's, which may quote keys). */
    readonly detail?: string,
  ) {
    super(message);
  }
}

/** The reason a status alone tells (a provider refines it from the error body: a 400 about the context length). */
export function reasonOfStatus(status: number | undefined): UpstreamReason | undefined {
  if (status === undefined) return undefined;
  if (status === 429) return 'rate_limit';
  if (status === 529 || status === 503) return 'overloaded';
  if (status === 401 || status === 403) return 'auth';
  if (status === 413) return 'context_length';
  if (status >= 400 && status < 500 && status !== 404 && status !== 408) return 'bad_request';
  return undefined;
}

/** The phrases vendors use when a prompt is longer than the model's context. */
const CONTEXT_LENGTH =
  /context[ _-]?(length|window)|maximum context|too many (input )?tokens|prompt is too long|input (is )?too long|exceeds? the (maximum|max)/i;

/** Whether an upstream's error message says the prompt does not fit the model's context. */
export const saysContextLength = (message: string | undefined): boolean =>
  message !== undefined && CONTEXT_LENGTH.test(message);

/**
 * A `Retry-After` header (seconds, or an HTTP date) in milliseconds from `now`; undefined when absent or unreadable.
 * `unit: 'ms'` reads a `retry-after-ms` header (a number of milliseconds only).
 */
export function retryAfterMs(
  header: string | string[] | undefined,
  now = Date.now(),
  unit: 's' | 'ms' = 's',
): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return undefined;
  const seconds = Number(value) / (unit === 'ms' ? 1000 : 1);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.round(seconds * 1000);
  if (unit === 'ms') return undefined;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** A Responses API body or answer, passed through as the client or the upstream sent it. */
export type ResponsesPayload = Readonly<Record<string, unknown>>;

/** One event of an upstream's Responses stream, as it sent it (`type`, `sequence_number` and its fields). */
export interface ResponsesEvent {
  readonly type: string;
  readonly [field: string]: unknown;
}

export interface ModelProvider {
  chat(model: ModelConfig, request: ChatRequest, signal: AbortSignal): Promise<ChatResult>;
  /** Yields deltas as they arrive; aborting `signal` ends the upstream call. */
  chatStream(model: ModelConfig, request: ChatRequest, signal: AbortSignal): AsyncIterable<ChatDelta>;
  /** Texts, or token ids (as the common format allows: LangChain sends them by default). */
  embed(model: ModelConfig, inputs: readonly EmbeddingInput[], signal: AbortSignal): Promise<EmbeddingResult>;
  rerank(
    model: ModelConfig,
    query: string,
    documents: readonly string[],
    signal: AbortSignal,
  ): Promise<RerankResult>;
  image(model: ModelConfig, request: ImageRequest, signal: AbortSignal): Promise<ImageResult>;
  /** Speech synthesis (models of kind `speech`); absent where the provider has none. */
  speech?(model: ModelConfig, request: SpeechRequest, signal: AbortSignal): Promise<SpeechResult>;
  /** Transcription (models of kind `transcription`); absent where the provider has none. */
  transcribe?(
    model: ModelConfig,
    request: TranscriptionRequest,
    signal: AbortSignal,
  ): Promise<TranscriptionResult>;
  /** The Responses API natively, for models configured `api: responses` (upstream providers only). */
  responses?(model: ModelConfig, body: ResponsesPayload, signal: AbortSignal): Promise<ResponsesPayload>;
  responsesStream?(
    model: ModelConfig,
    body: ResponsesPayload,
    signal: AbortSignal,
  ): AsyncIterable<ResponsesEvent>;
}

/** One embeddings input: a text, or the token ids of one. */
export type EmbeddingInput = string | readonly number[];
