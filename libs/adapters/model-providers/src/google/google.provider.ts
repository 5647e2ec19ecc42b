// Models of provider type `google`: the Gemini API (https://ai.google.dev/api) over undici (upstream-http.ts), chat as
// `models/<id>:generateContent` and `:streamGenerateContent?alt=sse`, embeddings as `:batchEmbedContents`. The key
// goes in the `x-goog-api-key` header, never in the query (a URL ends up in logs).
import type { ModelConfig } from '../model.js';
import type { ModelRegistry } from '../model-registry.js';
import { textInputs, unserved, upstreamJson } from '../native/native-calls.js';
import { UpstreamHttp, type UpstreamRequest } from '../upstream-http.js';
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
import { geminiModelPath, geminiRequest } from './gemini-request.js';
import {
  chatResultOf,
  GeminiStreamReader,
  googleReason,
  googleRetryAfterMs,
  type GeminiResponse,
} from './gemini-answer.js';

interface BatchEmbedResponse {
  embeddings?: { values?: number[] }[];
}

export class GoogleProvider implements ModelProvider {
  private readonly http: UpstreamHttp;

  constructor(registry: ModelRegistry) {
    this.http = new UpstreamHttp((model) => registry.upstreamKey(model));
  }

  close(): Promise<void> {
    return this.http.close();
  }

  async chat(model: ModelConfig, request: ChatRequest, signal: AbortSignal): Promise<ChatResult> {
    const body = JSON.stringify(geminiRequest(request));
    const response = await this.post(model, ':generateContent', body, signal);
    const answer = await this.http.json<GeminiResponse | null>(model, response, signal);
    const result = answer ? chatResultOf(answer) : undefined;
    if (!result)
      throw new UpstreamError('rejected', `upstream of model '${model.key}' answered no candidate`);
    return result;
  }

  async *chatStream(model: ModelConfig, request: ChatRequest, signal: AbortSignal): AsyncIterable<ChatDelta> {
    const body = JSON.stringify(geminiRequest(request));
    const response = await this.post(model, ':streamGenerateContent?alt=sse', body, signal);
    const reader = new GeminiStreamReader();
    for await (const message of this.http.events(model, response, signal)) {
      const chunk = upstreamJson<GeminiResponse>(model, message.data);
      if (chunk.error)
        throw new UpstreamError(
          'rejected',
          `upstream of model '${model.key}' sent an error mid-stream`,
          chunk.error.code,
          undefined,
          googleReason(chunk.error.code ?? 500, JSON.stringify({ error: chunk.error })),
        );
      yield* reader.read(chunk);
    }
    yield reader.end();
  }

  async embed(
    model: ModelConfig,
    inputs: readonly EmbeddingInput[],
    signal: AbortSignal,
  ): Promise<EmbeddingResult> {
    const name = geminiModelPath(model.modelId);
    const texts = textInputs(model, inputs);
    const body = JSON.stringify({
      requests: texts.map((text) => ({ model: name, content: { parts: [{ text }] } })),
    });
    const response = await this.post(model, ':batchEmbedContents', body, signal);
    const answer = await this.http.json<BatchEmbedResponse | null>(model, response, signal);
    const vectors = (answer?.embeddings ?? []).map((embedding) => embedding.values ?? []);
    if (vectors.length !== texts.length)
      throw new UpstreamError(
        'rejected',
        `upstream of model '${model.key}' answered the wrong number of vectors`,
      );
    // The Gemini API counts no tokens for embeddings: about four characters make one.
    const characters = texts.reduce((sum, text) => sum + text.length, 0);
    return { vectors, inputTokens: Math.ceil(characters / 4) };
  }

  rerank(model: ModelConfig): Promise<RerankResult> {
    return unserved(model, 'rerank');
  }

  image(model: ModelConfig): Promise<ImageResult> {
    return unserved(model, 'image');
  }

  private post(model: ModelConfig, method: string, body: string, signal: AbortSignal) {
    const key = this.http.key(model);
    const request: UpstreamRequest = {
      path: `/${geminiModelPath(model.modelId)}${method}`,
      body,
      headers: {
        accept: method.includes('alt=sse') ? 'text/event-stream' : 'application/json',
        ...(key ? { 'x-goog-api-key': key } : {}),
      },
      reasonOf: googleReason,
      retryAfterOf: googleRetryAfterMs,
    };
    return this.http.send(model, request, signal);
  }
}
