// Models of provider type `ollama`: Ollama's native API over undici (upstream-http.ts), chat as `POST /api/chat` (a
// stream as NDJSON lines) and embeddings as `POST /api/embed`. A local Ollama takes no key; with `apiKeyEnv` set the
// key goes as a bearer token (ollama.com, or a proxy in front of a shared one).
import type { ModelConfig } from '../model.js';
import type { ModelRegistry } from '../model-registry.js';
import { textInputs, unserved, upstreamJson } from '../native/native-calls.js';
import { UpstreamHttp } from '../upstream-http.js';
import {
  UpstreamError,
  type ChatDelta,
  type ChatRequest,
  type ChatResult,
  type EmbeddingInput,
  type EmbeddingResult,
  type ImageResult,
  type ModelProvider,
  type RerankResult,
} from '../provider.port.js';
import {
  chatResultOf,
  ollamaReason,
  ollamaRequest,
  OllamaStreamReader,
  type OllamaChatResponse,
} from './ollama-wire.js';

interface EmbedResponse {
  embeddings?: number[][];
  prompt_eval_count?: number;
}

export class OllamaProvider implements ModelProvider {
  private readonly http: UpstreamHttp;

  constructor(registry: ModelRegistry) {
    this.http = new UpstreamHttp((model) => registry.upstreamKey(model));
  }

  close(): Promise<void> {
    return this.http.close();
  }

  async chat(model: ModelConfig, request: ChatRequest, signal: AbortSignal): Promise<ChatResult> {
    const body = JSON.stringify(ollamaRequest(model.modelId, request, false));
    const response = await this.post(model, '/api/chat', body, signal, 'application/json');
    const answer = await this.http.json<OllamaChatResponse | null>(model, response, signal);
    if (!answer?.message)
      throw new UpstreamError('rejected', `upstream of model '${model.key}' answered no message`);
    return chatResultOf(answer);
  }

  async *chatStream(model: ModelConfig, request: ChatRequest, signal: AbortSignal): AsyncIterable<ChatDelta> {
    const body = JSON.stringify(ollamaRequest(model.modelId, request, true));
    const response = await this.post(model, '/api/chat', body, signal, 'application/x-ndjson');
    const reader = new OllamaStreamReader();
    let done = false;
    for await (const text of this.http.lines(model, response, signal)) {
      const line = upstreamJson<OllamaChatResponse>(model, text);
      if (line.error !== undefined)
        throw new UpstreamError('rejected', `upstream of model '${model.key}' sent an error mid-stream`);
      done ||= line.done === true;
      yield* reader.read(line);
    }
    if (!done)
      throw new UpstreamError('unavailable', `upstream of model '${model.key}' ended the stream early`);
  }

  async embed(
    model: ModelConfig,
    inputs: readonly EmbeddingInput[],
    signal: AbortSignal,
  ): Promise<EmbeddingResult> {
    const body = JSON.stringify({ model: model.modelId, input: textInputs(model, inputs) });
    const response = await this.post(model, '/api/embed', body, signal, 'application/json');
    const answer = await this.http.json<EmbedResponse | null>(model, response, signal);
    const vectors = answer?.embeddings ?? [];
    if (vectors.length !== inputs.length)
      throw new UpstreamError(
        'rejected',
        `upstream of model '${model.key}' answered the wrong number of vectors`,
      );
    return { vectors, inputTokens: answer?.prompt_eval_count ?? 0 };
  }

  rerank(model: ModelConfig): Promise<RerankResult> {
    return unserved(model, 'rerank');
  }

  image(model: ModelConfig): Promise<ImageResult> {
    return unserved(model, 'image');
  }

  private post(model: ModelConfig, path: string, body: string, signal: AbortSignal, accept: string) {
    const key = this.http.key(model);
    return this.http.send(
      model,
      {
        path,
        body,
        headers: { accept, ...(key ? { authorization: `Bearer ${key}` } : {}) },
        reasonOf: ollamaReason,
      },
      signal,
    );
  }
}
