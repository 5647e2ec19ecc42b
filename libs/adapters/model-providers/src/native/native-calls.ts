// What the providers of vendors' native APIs (google, ollama) share around their upstream calls: a stream piece's
// JSON read or refused as malformed, ids for the tool calls the vendor gives none, embeddings inputs that must be
// texts, and the kinds of model they do not serve.
import { randomBytes } from 'node:crypto';
import { ValidationError } from '#kernel';
import type { ModelConfig } from '../model.js';
import { UpstreamError, type EmbeddingInput } from '../provider.port.js';

/** One piece of an upstream's stream (an SSE event's data, an NDJSON line) as JSON. */
export function upstreamJson<T>(model: ModelConfig, text: string): T {
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new UpstreamError('rejected', `upstream of model '${model.key}' answered malformed JSON`);
  }
}

/** An id for a tool call the vendor answered without one (the client sends it back with the call's result). */
export const toolCallId = (): string => `call_${randomBytes(12).toString('base64url')}`;

/** The inputs as texts; token ids are refused (a 400): they are another model's tokens to these vendors. */
export function textInputs(model: ModelConfig, inputs: readonly EmbeddingInput[]): readonly string[] {
  if (inputs.some((input) => typeof input !== 'string'))
    throw new ValidationError(
      'unsupported_input',
      `model '${model.key}' (provider type ${model.providerType}) embeds texts only; send the input as strings, not token ids`,
      'input',
    );
  return inputs as readonly string[];
}

/** A call of a kind the provider type serves no model of (the models file refuses such models). */
export const unserved = (model: ModelConfig, kind: string): Promise<never> =>
  Promise.reject(
    new UpstreamError(
      'unavailable',
      `model '${model.key}' (provider type ${model.providerType}) serves no ${kind}`,
    ),
  );
