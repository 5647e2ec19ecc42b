// The models file's shape (MODELS_FILE, validated as it is read) and the offline models every instance has: what the
// registry (model-registry.ts) builds its models from.
import { z } from 'zod';
import { MODEL_KINDS, SECURITY_TIERS, type ModelKind } from './model.js';
import { DeploymentEntry } from './model-deployments.js';
import { RateLimitFields, UpstreamFields } from './upstream-fields.js';

export { ENV_NAME } from './upstream-fields.js';
/** An upstream chat model's context when the file gives none: today's common size, which a file can lower. */
export const UPSTREAM_CHAT_CONTEXT_WINDOW = 128_000;
/**
 * The offline models' context, and the default for other kinds (the usual embedding input limit): small enough
 * that a conversation on offline-chat exercises trimming its history like a real model would.
 */
export const SMALL_CONTEXT_WINDOW = 8192;

const Pricing = z.strictObject({
  input: z.number().min(0),
  output: z.number().min(0),
  cachedInput: z.number().min(0).optional(),
  cacheWrite: z.number().min(0).optional(),
});

export const ModelEntry = z.strictObject({
  key: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$/, 'letters, digits and . _ : / - only'),
  modelId: z.string().min(1).optional(),
  displayName: z.string().min(1).optional(),
  provider: z.string().min(1),
  kind: z.enum(MODEL_KINDS),
  region: z.string().optional(),
  securityTier: z.enum(SECURITY_TIERS).optional(),
  locationLabel: z.string().optional(),
  tags: z.array(z.string()).default([]),
  pricing: Pricing.default({ input: 0, output: 0 }),
  includedUsage: z.boolean().default(false),
  contextWindow: z.number().int().positive().optional(),
  ...UpstreamFields,
  ...RateLimitFields,
  /** The upstream's native API besides chat completions: `responses` passes POST /responses through as it is. */
  api: z.enum(['chat-completions', 'responses']).optional(),
  /** Several upstreams serving this key (model-deployments.ts); each inherits what the entry says. */
  deployments: z.array(DeploymentEntry).min(1).max(64).optional(),
  /** Model keys tried in order once every deployment of this one failed. */
  fallbacks: z.array(z.string()).max(16).optional(),
  /** A fallback may be less trusted (a lower security tier) than this model. */
  fallbackToLowerTier: z.boolean().default(false),
});

export const ModelsFile = z.strictObject({
  hostingRegion: z.string().min(1).optional(),
  /** Upstreams by name: models with `provider: <name>` inherit its type, baseUrl, apiKeyEnv, timeoutMs, …. */
  providers: z.record(z.string(), z.strictObject(UpstreamFields)).default({}),
  /** The instance default model per kind (one per kind at most). */
  defaults: z.partialRecord(z.enum(MODEL_KINDS), z.string()).default({}),
  /** The configured reranker: the only model `POST /rerank` accepts. */
  reranker: z.string().optional(),
  models: z.array(ModelEntry).default([]),
});

export type ModelsFileContent = z.input<typeof ModelsFile>;

export class ModelsFileError extends Error {}

export const OFFLINE: readonly {
  key: string;
  kind: ModelKind;
  displayName: string;
  tags: string[];
}[] = [
  {
    key: 'offline-chat',
    kind: 'chat',
    displayName: 'Offline chat (deterministic stand-in, not a language model)',
    tags: ['offline', 'deterministic', 'tools', 'streaming'],
  },
  {
    key: 'offline-embed',
    kind: 'embedding',
    displayName: 'Offline embeddings (feature hashing, 384 dimensions)',
    tags: ['offline', 'deterministic'],
  },
  {
    key: 'offline-rerank',
    kind: 'rerank',
    displayName: 'Offline reranker (lexical BM25 relevance)',
    tags: ['offline', 'deterministic'],
  },
  {
    key: 'offline-image',
    kind: 'image',
    displayName: 'Offline image (deterministic pattern PNG)',
    tags: ['offline', 'deterministic'],
  },
  {
    key: 'offline-speech',
    kind: 'speech',
    displayName: 'Offline speech (a WAV of tones carrying the text, read back by offline-transcribe)',
    tags: ['offline', 'deterministic'],
  },
  {
    key: 'offline-transcribe',
    kind: 'transcription',
    displayName: 'Offline transcription (reads back what offline-speech said)',
    tags: ['offline', 'deterministic'],
  },
];
