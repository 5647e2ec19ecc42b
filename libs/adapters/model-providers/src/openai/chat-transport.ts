// The chat hot path to OpenAI-compatible upstreams over undici (upstream-http.ts), speaking the chat-completions wire
// format directly. Measured against the `openai` SDK on the same path, the SDK cost about 390 µs of CPU per call
// (request building, debug formatting, fetch and web streams): 40% of the gateway's budget. The SDK still serves the
// colder calls (embeddings, rerank). Azure OpenAI speaks the same wire at its own paths with an `api-key` header: a
// ChatWire says where and how.
import type { ChatCompletion, ChatCompletionChunk } from 'openai/resources/chat/completions';
import type { ModelConfig } from '../model.js';
import { requestBody, sendable } from './request-body.js';
import { withoutCacheControl } from '../cache-control.js';
import { errorJson, STREAM_END, UpstreamHttp, type ErrorReasonReader } from '../upstream-http.js';
import {
  saysContextLength,
  UpstreamError,
  type ChatDelta,
  type ChatRequest,
  type ChatResult,
  type ResponsesEvent,
  type ResponsesPayload,
  type TokenUsage,
  type UpstreamReason,
} from '../provider.port.js';

type WireUsage = ChatCompletion['usage'];

export const toUsage = (usage: WireUsage | undefined | null): TokenUsage => ({
  inputTokens: usage?.prompt_tokens ?? 0,
  cachedInputTokens: usage?.prompt_tokens_details?.cached_tokens ?? 0,
  outputTokens: usage?.completion_tokens ?? 0,
});

const finish = (reason: string | null | undefined): ChatResult['finishReason'] | null =>
  reason === 'function_call'
    ? 'tool_calls'
    : ((reason as ChatResult['finishReason'] | null | undefined) ?? null);

/** OpenAI's error envelope `{ error: { code, message } }`: a prompt too long is `context_length_exceeded`. */
export function openAiReason(status: number, body: string): UpstreamReason | undefined {
  if (status !== 400 && status !== 413) return undefined;
  const error = errorJson(body).error as { code?: unknown; message?: unknown } | undefined;
  const message = typeof error?.message === 'string' ? error.message : undefined;
  return error?.code === 'context_length_exceeded' || saysContextLength(message)
    ? 'context_length'
    : undefined;
}

/**
 * Where an OpenAI-wire upstream takes a route and how it wants the key: OpenAI's `/chat/completions` under the base URL
 * with a Bearer key, or Azure OpenAI's deployment path with an `api-key` header (azure/azure-wire.ts).
 */
export interface ChatWire {
  /** The path of `route` (`/chat/completions`, `/responses`) for the model, query string included. */
  path(model: ModelConfig, route: string): string;
  /** The headers that carry the key. */
  auth(key: string): Record<string, string>;
  readonly reasonOf: ErrorReasonReader;
}

export const OPENAI_WIRE: ChatWire = {
  path: (_model, route) => route,
  auth: (key) => ({ authorization: `Bearer ${key}` }),
  reasonOf: openAiReason,
};

export class ChatTransport {
  private readonly http: UpstreamHttp;

  constructor(
    upstreamKey: (model: ModelConfig) => string | undefined,
    private readonly wire: ChatWire = OPENAI_WIRE,
  ) {
    this.http = new UpstreamHttp(upstreamKey);
  }

  async complete(model: ModelConfig, body: ChatRequest, signal: AbortSignal): Promise<ChatResult> {
    const response = await this.post(
      model,
      { ...withoutCacheControl(body), model: model.modelId, stream: false },
      signal,
      false,
    );
    const completion = await this.http.json<ChatCompletion>(model, response, signal);
    const choice = completion?.choices?.[0];
    if (!choice?.message)
      throw new UpstreamError('rejected', `upstream of model '${model.key}' answered no choice`);
    return {
      message: choice.message,
      finishReason: finish(choice.finish_reason) ?? 'stop',
      usage: toUsage(completion.usage),
    };
  }

  /** Not a generator of its own: each event is read into its delta in the loop that reads the body (upstream-http). */
  stream(model: ModelConfig, body: ChatRequest, signal: AbortSignal): AsyncIterable<ChatDelta> {
    const streamed = {
      ...withoutCacheControl(body),
      model: model.modelId,
      stream: true,
      stream_options: { include_usage: true },
    };
    return this.http.readEvents(
      model,
      () => this.post(model, streamed, signal, true),
      signal,
      (message) => this.delta(model, message.data),
    );
  }

  /** One chunk's delta; undefined for a chunk with neither a choice nor usage. */
  private delta(model: ModelConfig, data: string): ChatDelta | undefined | typeof STREAM_END {
    if (data === '[DONE]') return STREAM_END;
    const chunk = this.parse<ChatCompletionChunk & { error?: unknown }>(model, data);
    if (chunk.error)
      throw new UpstreamError('rejected', `upstream of model '${model.key}' sent an error mid-stream`);
    const choice = chunk.choices?.[0];
    if (choice)
      return {
        delta: choice.delta ?? {},
        finishReason: finish(choice.finish_reason),
        ...(chunk.usage ? { usage: toUsage(chunk.usage) } : {}),
      };
    return chunk.usage ? { delta: {}, finishReason: null, usage: toUsage(chunk.usage) } : undefined;
  }

  /** A Responses API call passed through (models configured `api: responses`): the body as the client sent it. */
  async responses(
    model: ModelConfig,
    body: ResponsesPayload,
    signal: AbortSignal,
  ): Promise<ResponsesPayload> {
    const response = await this.post(
      model,
      { ...body, model: model.modelId, stream: false },
      signal,
      false,
      '/responses',
    );
    const answer = await this.http.json<ResponsesPayload | null>(model, response, signal);
    if (typeof answer !== 'object' || answer === null || answer.object !== 'response')
      throw new UpstreamError('rejected', `upstream of model '${model.key}' answered no response`);
    return answer;
  }

  /** The upstream's Responses events as it sends them; its `error` and `response.failed` events end the stream. */
  async *responsesStream(
    model: ModelConfig,
    body: ResponsesPayload,
    signal: AbortSignal,
  ): AsyncIterable<ResponsesEvent> {
    const response = await this.post(
      model,
      { ...body, model: model.modelId, stream: true },
      signal,
      true,
      '/responses',
    );
    for await (const message of this.http.events(model, response, signal)) {
      const event = this.parse<ResponsesEvent>(model, message.data);
      if (event.type === 'error' || event.type === 'response.failed')
        throw new UpstreamError('rejected', `upstream of model '${model.key}' sent an error mid-stream`);
      yield event;
    }
  }

  close(): Promise<void> {
    return this.http.close();
  }

  private parse<T>(model: ModelConfig, data: string): T {
    try {
      return JSON.parse(data) as T;
    } catch {
      throw new UpstreamError('rejected', `upstream of model '${model.key}' answered malformed JSON`);
    }
  }

  private post(
    model: ModelConfig,
    body: object,
    signal: AbortSignal,
    stream: boolean,
    path = '/chat/completions',
  ) {
    const key = this.http.key(model);
    return this.http.send(
      model,
      {
        path: this.wire.path(model, path),
        body: sendable(requestBody(body)),
        headers: {
          accept: stream ? 'text/event-stream' : 'application/json',
          ...(key ? this.wire.auth(key) : {}),
        },
        reasonOf: this.wire.reasonOf,
      },
      signal,
    );
  }
}
