// Models of provider type `anthropic`: Anthropic's Messages API natively (`POST {baseUrl}/messages`, the key in
// `x-api-key`, `anthropic-version: 2023-06-01`), over the shared undici client (upstream-http.ts) as the OpenAI
// transport does, not the SDK: the hot path builds the body and reads the answer or its events directly. Anthropic
// serves chat only (the models file refuses other kinds for this type).
import type { ModelConfig } from '../model.js';
import type { ModelRegistry } from '../model-registry.js';
import { UpstreamHttp } from '../upstream-http.js';
import {
  UpstreamError,
  type ChatDelta,
  type ChatRequest,
  type ChatResult,
  type EmbeddingResult,
  type ImageResult,
  type ModelProvider,
  type RerankResult,
} from '../provider.port.js';
import { messagesBody } from './messages-request.js';
import {
  anthropicReason,
  MessagesStreamDecoder,
  toChatResult,
  type WireEvent,
  type WireMessage,
} from './messages-answer.js';

/** The API version every request names (the only one Anthropic has published). */
export const ANTHROPIC_VERSION = '2023-06-01';

export class AnthropicProvider implements ModelProvider {
  private readonly http: UpstreamHttp;

  constructor(registry: ModelRegistry) {
    this.http = new UpstreamHttp((model) => registry.upstreamKey(model));
  }

  close(): Promise<void> {
    return this.http.close();
  }

  async chat(model: ModelConfig, request: ChatRequest, signal: AbortSignal): Promise<ChatResult> {
    const response = await this.post(model, request, false, signal);
    return toChatResult(await this.http.json<WireMessage>(model, response, signal), model.key);
  }

  async *chatStream(model: ModelConfig, request: ChatRequest, signal: AbortSignal): AsyncIterable<ChatDelta> {
    const response = await this.post(model, request, true, signal);
    const decoder = new MessagesStreamDecoder(model.key);
    for await (const message of this.http.events(model, response, signal)) {
      const delta = decoder.decode(this.parse(model, message.data));
      if (delta) yield delta;
      if (decoder.done) return;
    }
    throw new UpstreamError('unavailable', `upstream of model '${model.key}' ended its stream early`);
  }

  embed(model: ModelConfig): Promise<EmbeddingResult> {
    return Promise.reject(this.chatOnly(model));
  }

  rerank(model: ModelConfig): Promise<RerankResult> {
    return Promise.reject(this.chatOnly(model));
  }

  image(model: ModelConfig): Promise<ImageResult> {
    return Promise.reject(this.chatOnly(model));
  }

  private chatOnly(model: ModelConfig): UpstreamError {
    return new UpstreamError(
      'unavailable',
      `model '${model.key}' is an Anthropic model: it serves chat only`,
    );
  }

  private parse(model: ModelConfig, data: string): WireEvent {
    try {
      return JSON.parse(data) as WireEvent;
    } catch {
      throw new UpstreamError('rejected', `upstream of model '${model.key}' answered malformed JSON`);
    }
  }

  private post(model: ModelConfig, request: ChatRequest, stream: boolean, signal: AbortSignal) {
    const key = this.http.key(model);
    return this.http.send(
      model,
      {
        path: '/messages',
        body: JSON.stringify(messagesBody(model.modelId, request, stream)),
        headers: {
          accept: stream ? 'text/event-stream' : 'application/json',
          'anthropic-version': ANTHROPIC_VERSION,
          ...(key ? { 'x-api-key': key } : {}),
        },
        reasonOf: anthropicReason,
      },
      signal,
    );
  }
}
