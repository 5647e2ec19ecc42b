// Amazon Bedrock through its Converse API (`POST /model/{modelId}/converse` and `/converse-stream`) over the shared
// undici client, signed with SigV4 from the AWS variables, or with a Bedrock API key (`Authorization: Bearer`) when
// the upstream names one in `apiKeyEnv`. The stream is AWS's binary event stream (`application/vnd.amazon.eventstream`),
// its frames decoded with the SDK's own codec; embeddings are Titan text embeddings (`/model/{modelId}/invoke`).
import type { Dispatcher } from 'undici';
import { lazyModule, ValidationError } from '#kernel';
import type { ModelConfig } from '../model.js';
import type { ModelRegistry } from '../model-registry.js';
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
import { converseBody } from './converse-request.js';
import {
  bedrockReason,
  chatResult,
  ConverseStreamDeltas,
  streamException,
  type ConverseAnswer,
} from './converse-answer.js';
import { BedrockSigner } from './sigv4.js';
import { eventFrames } from './event-stream.js';

const utf8 = lazyModule<typeof import('@smithy/util-utf8')>('@smithy/util-utf8');

/** Titan embeddings take one text per call: this many calls of one request run at once. */
const EMBED_CONCURRENCY = 4;

export class BedrockProvider implements ModelProvider {
  private readonly http: UpstreamHttp;
  private readonly signer = new BedrockSigner();

  constructor(private readonly registry: ModelRegistry) {
    this.http = new UpstreamHttp((model) => registry.upstreamKey(model));
  }

  close(): Promise<void> {
    return this.http.close();
  }

  async chat(model: ModelConfig, request: ChatRequest, signal: AbortSignal): Promise<ChatResult> {
    const response = await this.post(model, 'converse', JSON.stringify(converseBody(request)), signal);
    return chatResult(await this.http.json<ConverseAnswer>(model, response, signal), model.key);
  }

  async *chatStream(model: ModelConfig, request: ChatRequest, signal: AbortSignal): AsyncIterable<ChatDelta> {
    const response = await this.post(model, 'converse-stream', JSON.stringify(converseBody(request)), signal);
    const deltas = new ConverseStreamDeltas();
    const { toUtf8 } = utf8();
    for await (const frame of eventFrames(this.http.bytes(model, response, signal))) {
      const kind = frame.headers[':message-type']?.value;
      const body = toUtf8(frame.body);
      if (kind === 'exception')
        throw streamException(String(frame.headers[':exception-type']?.value ?? ''), body, model.key);
      if (kind !== 'event')
        throw new UpstreamError('rejected', `upstream of model '${model.key}' sent an error mid-stream`);
      let event: object;
      try {
        event = JSON.parse(body) as object;
      } catch {
        throw new UpstreamError('rejected', `upstream of model '${model.key}' answered malformed JSON`);
      }
      const delta = deltas.delta(String(frame.headers[':event-type']?.value ?? ''), event);
      if (delta) yield delta;
    }
  }

  /** Titan text embeddings: one `invoke` per text (`{ inputText }` → `{ embedding, inputTextTokenCount }`). */
  async embed(
    model: ModelConfig,
    inputs: readonly EmbeddingInput[],
    signal: AbortSignal,
  ): Promise<EmbeddingResult> {
    if (inputs.some((input) => typeof input !== 'string'))
      throw new ValidationError(
        'token_ids_unsupported',
        `model '${model.key}' (Bedrock) embeds texts, not token ids`,
        'input',
      );
    const vectors: number[][] = new Array<number[]>(inputs.length);
    let inputTokens = 0;
    let next = 0;
    const worker = async () => {
      while (next < inputs.length) {
        const at = next++;
        const body = JSON.stringify({ inputText: inputs[at] });
        const response = await this.post(model, 'invoke', body, signal);
        const answer = await this.http.json<{ embedding?: number[]; inputTextTokenCount?: number }>(
          model,
          response,
          signal,
        );
        if (!Array.isArray(answer?.embedding))
          throw new UpstreamError('rejected', `upstream of model '${model.key}' answered no embedding`);
        vectors[at] = answer.embedding;
        inputTokens += answer.inputTextTokenCount ?? 0;
      }
    };
    // A failed call ends the others' loops: the request has failed.
    const run = () =>
      worker().catch((error: unknown) => {
        next = inputs.length;
        throw error;
      });
    await Promise.all(Array.from({ length: Math.min(EMBED_CONCURRENCY, inputs.length) }, run));
    return { vectors, inputTokens };
  }

  rerank(model: ModelConfig): Promise<RerankResult> {
    return Promise.reject(new UpstreamError('unavailable', `model '${model.key}' (Bedrock) does not rerank`));
  }

  image(model: ModelConfig): Promise<ImageResult> {
    return Promise.reject(
      new UpstreamError('unavailable', `model '${model.key}' (Bedrock) makes no images here`),
    );
  }

  /** A signed (or API-key) POST to `/model/{modelId}/{action}`. */
  private async post(
    model: ModelConfig,
    action: 'converse' | 'converse-stream' | 'invoke',
    body: string,
    signal: AbortSignal,
  ): Promise<Dispatcher.ResponseData> {
    const path = `/model/${encodeURIComponent(model.modelId)}/${action}`;
    const accept = action === 'converse-stream' ? 'application/vnd.amazon.eventstream' : 'application/json';
    const headers = await this.authenticate(model, path, body, {
      'content-type': 'application/json',
      accept,
    });
    return this.http.send(model, { path, body, headers, reasonOf: bedrockReason }, signal);
  }

  /** A Bedrock API key when the upstream names one; otherwise a SigV4 signature with the AWS variables. */
  private async authenticate(
    model: ModelConfig,
    path: string,
    body: string,
    headers: Record<string, string>,
  ): Promise<Record<string, string>> {
    const key = this.http.key(model);
    if (key) return { ...headers, authorization: `Bearer ${key}` };
    const credentials = this.registry.awsCredentials(model);
    if (!credentials)
      throw new UpstreamError(
        'unavailable',
        `model '${model.key}' has no AWS credentials (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set)`,
      );
    try {
      return await this.signer.sign(model.baseUrl!, model.awsRegion!, credentials, path, body, headers);
    } catch {
      throw new UpstreamError('unavailable', `model '${model.key}': the request could not be signed`);
    }
  }
}
