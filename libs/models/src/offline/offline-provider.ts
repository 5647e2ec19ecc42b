// The offline provider: always available, needs no key and no network, and answers deterministically (same
// request → same result). It is a stand-in, not a model: chat quotes the last user message and says it is offline,
// embeddings are feature hashes, rerank is BM25, images are hash-derived patterns. Dispatch is by method, so any
// model configured with provider `offline` works whatever its id (the usual ids are offline-chat, offline-embed,
// offline-rerank and offline-image).
import type { ModelConfig } from '../model.js';
import type {
  ChatDelta,
  ChatRequest,
  ChatResult,
  EmbeddingResult,
  ImageRequest,
  ImageResult,
  ModelProvider,
  RerankResult,
} from '../provider.port.js';
import { offlineChat, offlineChatStream, type OfflineChatOptions } from './offline-chat.js';
import { offlineEmbed } from './offline-embed.js';
import { offlineImage } from './offline-image.js';
import { offlineRerank } from './offline-rerank.js';

export const OFFLINE_PROVIDER = 'offline';

export type OfflineProviderOptions = OfflineChatOptions;

export class OfflineProvider implements ModelProvider {
  constructor(private readonly options: OfflineProviderOptions = {}) {}

  async chat(_model: ModelConfig, request: ChatRequest, signal: AbortSignal): Promise<ChatResult> {
    signal.throwIfAborted();
    return offlineChat(request);
  }

  chatStream(_model: ModelConfig, request: ChatRequest, signal: AbortSignal): AsyncIterable<ChatDelta> {
    return offlineChatStream(request, signal, this.options);
  }

  async embed(_model: ModelConfig, inputs: readonly string[], signal: AbortSignal): Promise<EmbeddingResult> {
    signal.throwIfAborted();
    return offlineEmbed(inputs);
  }

  async rerank(
    _model: ModelConfig,
    query: string,
    documents: readonly string[],
    signal: AbortSignal,
  ): Promise<RerankResult> {
    signal.throwIfAborted();
    return offlineRerank(query, documents);
  }

  image(_model: ModelConfig, request: ImageRequest, signal: AbortSignal): Promise<ImageResult> {
    return offlineImage(request, signal);
  }
}
