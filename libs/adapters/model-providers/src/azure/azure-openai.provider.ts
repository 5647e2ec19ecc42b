// Azure OpenAI: the OpenAI wire at a deployment's paths (`/openai/deployments/{deployment}/chat/completions
// ?api-version=…`, the model's `modelId` naming the deployment) with the key in an `api-key` header. Chat goes through
// the same undici transport as OpenAI's (only the path and the key's header differ); embeddings, images, speech and
// transcription through the `openai` SDK's AzureOpenAI client. Its error envelope is OpenAI's; a prompt its content
// filter refuses is a 400 with code `content_filter`, told to the client as such (a filtered answer simply finishes
// with `content_filter`). Reference: the Azure OpenAI data-plane inference spec (api-version 2024-10-21) and the SDK's
// azure.js.
import type OpenAI from 'openai';
import { lazyModule } from '#kernel';
import type { ModelConfig } from '../model.js';
import type { ModelRegistry } from '../model-registry.js';
import { errorJson, type ErrorReasonReader } from '../upstream-http.js';
import { openAiReason, type ChatWire } from '../openai/chat-transport.js';
import { OpenAiCompatibleProvider } from '../openai/openai-compatible.provider.js';

const sdk = lazyModule<typeof import('openai')>('openai');

/** A 400 whose code is `content_filter` (the prompt tripped Azure's filter); otherwise OpenAI's reading. */
export const azureReason: ErrorReasonReader = (status, body) => {
  if (status === 400) {
    const error = errorJson(body).error as { code?: unknown; innererror?: { code?: unknown } } | undefined;
    if (error?.code === 'content_filter' || error?.innererror?.code === 'ResponsibleAIPolicyViolation')
      return {
        reason: 'bad_request',
        detail: "Azure OpenAI's content filter refused the prompt (content_filter)",
      };
  }
  return openAiReason(status, body);
};

export const AZURE_WIRE: ChatWire = {
  path: (model, route) =>
    `/openai/deployments/${encodeURIComponent(model.modelId)}${route}?api-version=${encodeURIComponent(model.apiVersion ?? '')}`,
  auth: (key) => ({ 'api-key': key }),
  reasonOf: azureReason,
};

/** The SDK's Azure client: it puts the body's `model` (the deployment) into the path and the key into `api-key`. */
const azureClient = (model: ModelConfig, apiKey: string): OpenAI =>
  new (sdk().AzureOpenAI)({
    endpoint: model.baseUrl,
    apiKey,
    apiVersion: model.apiVersion,
    maxRetries: 0,
    timeout: model.timeoutMs,
  });

export class AzureOpenAiProvider extends OpenAiCompatibleProvider {
  constructor(registry: ModelRegistry) {
    super(registry, { wire: AZURE_WIRE, client: azureClient });
  }
}
