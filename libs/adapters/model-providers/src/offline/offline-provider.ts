// The offline provider: always available, needs no key and no network, and answers deterministically (same
// request → same result). It is a stand-in, not a model: chat quotes the last user message and says it is offline,
// embeddings are feature hashes, rerank is BM25, images are hash-derived patterns. Dispatch is by method, so any
// model configured with provider `offline` works whatever its id (the usual ids are offline-chat, offline-embed,
// offline-rerank, offline-image, offline-speech and offline-transcribe).
import type { ModelConfig } from '../model.js';
import type {
  ChatDelta,
  ChatRequest,
  ChatResult,
  EmbeddingInput,
  EmbeddingResult,
  ImageRequest,
  ImageResult,
  ModelProvider,
  RerankResult,
  SpeechRequest,
  SpeechResult,
  TranscriptionRequest,
  TranscriptionResult,
} from '../provider.port.js';
import { offlineSpeech, offlineTranscription } from './offline-speech.js';
import { streamChatResult, type OfflineChatOptions } from './offline-chat.js';
import { offlineImage } from './offline-image.js';
import { runOffline } from './offline-pool.js';
import { textOfTokenIds } from './token-ids.js';

export const OFFLINE_PROVIDER = 'offline';

export type OfflineProviderOptions = OfflineChatOptions;

export class OfflineProvider implements ModelProvider {
  constructor(private readonly options: OfflineProviderOptions = {}) {}

  // Big inputs are worked in a worker thread (offline-pool.ts): the api's event loop stays free.
  async chat(_model: ModelConfig, request: ChatRequest, signal: AbortSignal): Promise<ChatResult> {
    signal.throwIfAborted();
    return runOffline<ChatResult>({ op: 'chat', request });
  }

  async *chatStream(
    _model: ModelConfig,
    request: ChatRequest,
    signal: AbortSignal,
  ): AsyncIterable<ChatDelta> {
    signal.throwIfAborted();
    const result = await runOffline<ChatResult>({ op: 'chat', request });
    yield* streamChatResult(result, signal, this.options);
  }

  async embed(
    _model: ModelConfig,
    inputs: readonly EmbeddingInput[],
    signal: AbortSignal,
  ): Promise<EmbeddingResult> {
    signal.throwIfAborted();
    const texts = inputs.map((input) => (typeof input === 'string' ? input : textOfTokenIds(input)));
    return runOffline<EmbeddingResult>({ op: 'embed', inputs: texts });
  }

  async rerank(
    _model: ModelConfig,
    query: string,
    documents: readonly string[],
    signal: AbortSignal,
  ): Promise<RerankResult> {
    signal.throwIfAborted();
    return runOffline<RerankResult>({ op: 'rerank', query, documents });
  }

  image(_model: ModelConfig, request: ImageRequest, signal: AbortSignal): Promise<ImageResult> {
    return offlineImage(request, signal);
  }

  speech(_model: ModelConfig, request: SpeechRequest): Promise<SpeechResult> {
    return Promise.resolve().then(() => offlineSpeech(request));
  }

  transcribe(_model: ModelConfig, request: TranscriptionRequest): Promise<TranscriptionResult> {
    return Promise.resolve().then(() => offlineTranscription(request));
  }
}
