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

/** An upstream failure, mapped by the gateway to 502 (upstream error) or 504 (timeout). */
export class UpstreamError extends Error {
  constructor(
    readonly kind: 'timeout' | 'unavailable' | 'rejected',
    message: string,
    /** The upstream's HTTP status, when it answered. */
    readonly upstreamStatus?: number,
    /** How long the upstream asked to wait before another try (its `Retry-After`), when it said. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

/** A `Retry-After` header (seconds, or an HTTP date) in milliseconds from `now`; undefined when absent or unreadable. */
export function retryAfterMs(header: string | string[] | undefined, now = Date.now()): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.round(seconds * 1000);
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
