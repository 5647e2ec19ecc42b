// Real upstreams: OpenAI, Azure OpenAI's v1 API, Mistral, vLLM, Ollama, or any OpenAI-compatible server. Chat goes
// through ChatTransport (undici, the hot path); embeddings and rerank through the official `openai` SDK. The base URL
// and key come from the registry only (a client can never choose them). Each call has the model's timeout, and the
// caller's signal (a client that disconnects) aborts it.
import type OpenAI from 'openai';
import type { DeploymentConfig, ModelConfig } from '../model.js';
import { ChatTransport, OPENAI_WIRE, type ChatWire } from './chat-transport.js';
import { imageSize } from '../offline/offline-image.js';
import { lazyModule, ValidationError } from '#kernel';
import type { ModelRegistry } from '../model-registry.js';
import type {
  SpeechRequest,
  SpeechResult,
  TranscriptionRequest,
  TranscriptionResult,
} from '../provider.port.js';
import {
  UpstreamError,
  type ChatDelta,
  type ChatRequest,
  type ChatResult,
  type EmbeddingInput,
  type EmbeddingResult,
  type ImageRequest,
  type ImageResult,
  type ModelProvider,
  type RerankResult,
  type ResponsesEvent,
  type ResponsesPayload,
} from '../provider.port.js';

const sdk = lazyModule<typeof import('openai')>('openai');

const IMAGE_OPTIONS = new Set(['size', 'quality', 'style', 'background', 'output_format']);

/** Width and height from a PNG's IHDR chunk; null when the bytes are not a PNG. */
function pngSize(base64: string): { width: number; height: number } | null {
  const head = Buffer.from(base64.slice(0, 44), 'base64');
  if (head.length < 24 || head.readUInt32BE(0) !== 0x89504e47) return null;
  return { width: head.readUInt32BE(16), height: head.readUInt32BE(20) };
}

/** How an OpenAI-wire upstream is reached: the chat wire (path, key header), and the SDK client of the other calls. */
export interface OpenAiFlavour {
  readonly wire: ChatWire;
  client(model: ModelConfig, apiKey: string): OpenAI;
}

const OPENAI_FLAVOUR: OpenAiFlavour = {
  wire: OPENAI_WIRE,
  // Retries stay with the caller (the gateway answers fast and the client decides); the timeout is ours.
  client: (model, apiKey) =>
    new (sdk().OpenAI)({ baseURL: model.baseUrl, apiKey, maxRetries: 0, timeout: model.timeoutMs }),
};

export class OpenAiCompatibleProvider implements ModelProvider {
  private readonly clients = new Map<string, OpenAI>();
  private readonly transport: ChatTransport;

  constructor(
    private readonly registry: ModelRegistry,
    private readonly flavour: OpenAiFlavour = OPENAI_FLAVOUR,
  ) {
    this.transport = new ChatTransport((model) => registry.upstreamKey(model), flavour.wire);
  }

  close(): Promise<void> {
    return this.transport.close();
  }

  private client(model: ModelConfig): OpenAI {
    // A deployment of a model key reaches its own upstream: one client each.
    const name = (model as Partial<DeploymentConfig>).deploymentId ?? model.key;
    let client = this.clients.get(name);
    if (!client) {
      client = this.flavour.client(model, this.registry.upstreamKey(model) ?? 'not-set');
      this.clients.set(name, client);
    }
    return client;
  }

  /** Runs an upstream call with the model's timeout and the caller's signal, mapping failures to UpstreamError. */
  private async call<T>(
    model: ModelConfig,
    signal: AbortSignal,
    run: (signal: AbortSignal) => Promise<T>,
  ): Promise<T> {
    this.assertKey(model);
    const timeout = AbortSignal.timeout(model.timeoutMs);
    try {
      return await run(AbortSignal.any([signal, timeout]));
    } catch (error) {
      throw this.mapError(model, error, timeout, signal);
    }
  }

  private assertKey(model: ModelConfig): void {
    if (model.apiKeyEnv && !this.registry.upstreamKey(model))
      throw new UpstreamError(
        'unavailable',
        `model '${model.key}' has no upstream key (${model.apiKeyEnv} is not set)`,
      );
  }

  private mapError(model: ModelConfig, error: unknown, timeout: AbortSignal, caller: AbortSignal): unknown {
    if (error instanceof UpstreamError) return error;
    // The caller's abort wins: the client went away, whatever the upstream did.
    if (caller.aborted) return caller.reason ?? error;
    // Timeouts are told apart by our own signal, not the error class (which differs across realms).
    if (timeout.aborted)
      return new UpstreamError('timeout', `model '${model.key}' did not answer within ${model.timeoutMs} ms`);
    const { APIError, APIUserAbortError } = sdk();
    if (error instanceof APIError && typeof error.status === 'number')
      return new UpstreamError(
        'rejected',
        `upstream answered ${error.status} for model '${model.key}'`,
        error.status,
      );
    if ((error as { name?: string } | null)?.name === 'AbortError' || error instanceof APIUserAbortError)
      return error;
    return new UpstreamError('unavailable', `upstream of model '${model.key}' is unreachable`);
  }

  chat(model: ModelConfig, request: ChatRequest, signal: AbortSignal): Promise<ChatResult> {
    return this.transport.complete(model, request, signal);
  }

  chatStream(model: ModelConfig, request: ChatRequest, signal: AbortSignal): AsyncIterable<ChatDelta> {
    return this.transport.stream(model, request, signal);
  }

  responses(model: ModelConfig, body: ResponsesPayload, signal: AbortSignal): Promise<ResponsesPayload> {
    return this.transport.responses(model, body, signal);
  }

  responsesStream(
    model: ModelConfig,
    body: ResponsesPayload,
    signal: AbortSignal,
  ): AsyncIterable<ResponsesEvent> {
    return this.transport.responsesStream(model, body, signal);
  }

  embed(
    model: ModelConfig,
    inputs: readonly EmbeddingInput[],
    signal: AbortSignal,
  ): Promise<EmbeddingResult> {
    return this.call(model, signal, async (combined) => {
      // Token ids go upstream as they are: they are the upstream model's own tokens.
      const input = inputs.every((item) => typeof item === 'string')
        ? [...inputs]
        : inputs.map((item) => (typeof item === 'string' ? item : [...item]));
      const response = await this.client(model).embeddings.create(
        { model: model.modelId, input: input as string[] | number[][], encoding_format: 'float' },
        { signal: combined },
      );
      const vectors = [...response.data].sort((a, b) => a.index - b.index).map((item) => item.embedding);
      return { vectors, inputTokens: response.usage?.prompt_tokens ?? 0 };
    });
  }

  rerank(
    model: ModelConfig,
    query: string,
    documents: readonly string[],
    signal: AbortSignal,
  ): Promise<RerankResult> {
    return this.call(model, signal, async (combined) => {
      // Rerank has no counterpart in the SDK; Cohere/Jina/vLLM-style servers take this body at POST /rerank.
      const response = await this.client(model).post<{
        results: { index: number; relevance_score: number }[];
        usage?: { total_tokens?: number; prompt_tokens?: number };
      }>('/rerank', { body: { model: model.modelId, query, documents: [...documents] }, signal: combined });
      const scores = documents.map(() => 0);
      for (const result of response.results ?? [])
        if (result.index >= 0 && result.index < scores.length) scores[result.index] = result.relevance_score;
      return { scores, inputTokens: response.usage?.total_tokens ?? response.usage?.prompt_tokens ?? 0 };
    });
  }

  /**
   * OpenAI's images API (`POST /images/generations`), answered in base64. The size is the requested aspect ratio at
   * the requested resolution (1K 16:9 → 1024x576); `imageConfig` passes provider options through (`size`, `quality`,
   * `style`, `background`, `output_format`), so a model with fixed sizes gets e.g. `{ size: '1536x1024' }`.
   * Inpainting needs the image to edit, which generateImage does not carry: a mask is refused for upstream models.
   */
  image(model: ModelConfig, request: ImageRequest, signal: AbortSignal): Promise<ImageResult> {
    if (request.mask !== undefined)
      return Promise.reject(
        new ValidationError(
          'inpainting_unsupported',
          `model '${model.key}' cannot inpaint through its upstream; send no mask`,
          'mask',
        ),
      );
    const { width, height } = imageSize(request.aspectRatio, request.resolution);
    const options = Object.fromEntries(
      Object.entries(request.imageConfig ?? {}).filter(([field]) => IMAGE_OPTIONS.has(field)),
    );
    return this.call(model, signal, async (combined) => {
      const response = await this.client(model).images.generate(
        {
          model: model.modelId,
          prompt: request.prompt,
          n: 1,
          size: `${width}x${height}`,
          response_format: 'b64_json',
          ...options,
        } as OpenAI.ImageGenerateParamsNonStreaming,
        { signal: combined },
      );
      const base64 = response.data?.[0]?.b64_json;
      if (!base64) throw new UpstreamError('rejected', `upstream of model '${model.key}' answered no image`);
      const size = pngSize(base64);
      return {
        base64,
        mimeType: size ? 'image/png' : 'image/jpeg',
        width: size?.width ?? width,
        height: size?.height ?? height,
      };
    });
  }

  /** OpenAI-compatible `/audio/speech` (one voice; a multi-speaker request uses its first speaker's voice). */
  speech(model: ModelConfig, request: SpeechRequest, signal: AbortSignal): Promise<SpeechResult> {
    const voice = request.voiceName ?? request.speakers?.[0]?.voiceName ?? 'alloy';
    return this.call(model, signal, async (combined) => {
      const response = await this.client(model).audio.speech.create(
        { model: model.modelId, input: request.text, voice, response_format: 'wav' },
        { signal: combined },
      );
      return {
        audio: new Uint8Array(await response.arrayBuffer()),
        mimeType: response.headers.get('content-type')?.split(';')[0] ?? 'audio/wav',
      };
    });
  }

  /** OpenAI-compatible `/audio/transcriptions` (multipart, the audio as a file). */
  transcribe(
    model: ModelConfig,
    request: TranscriptionRequest,
    signal: AbortSignal,
  ): Promise<TranscriptionResult> {
    return this.call(model, signal, async (combined) => {
      const extension =
        request.mimeType
          .split('/')[1]
          ?.replace(/^x-/, '')
          .replace(/[^a-z0-9]/g, '') || 'wav';
      const file = await sdk().toFile(Buffer.from(request.audio), `audio.${extension}`, {
        type: request.mimeType,
      });
      const response = await this.client(model).audio.transcriptions.create(
        { model: model.modelId, file, ...(request.prompt ? { prompt: request.prompt } : {}) },
        { signal: combined },
      );
      return { text: response.text };
    });
  }
}
