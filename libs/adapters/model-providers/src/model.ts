// What a model is to the platform: its configuration (from MODELS_FILE), the public description clients see, and
// the security tier rule of the spec.
export const MODEL_KINDS = ['chat', 'embedding', 'rerank', 'image', 'speech', 'transcription'] as const;
export type ModelKind = (typeof MODEL_KINDS)[number];

/**
 * The wire an upstream speaks: `openai` (any OpenAI-compatible server, the default), `anthropic` (Messages API),
 * `google` (Gemini API), `azure` (Azure OpenAI: deployments and api-version), `bedrock` (Converse API, SigV4),
 * `ollama` (its native chat API). The offline models have none.
 */
export const PROVIDER_TYPES = ['openai', 'anthropic', 'google', 'azure', 'bedrock', 'ollama'] as const;
export type ProviderType = (typeof PROVIDER_TYPES)[number];

export const SECURITY_TIERS = ['secure', 'eu-hosted', 'us-cloud'] as const;
/** Ordered from most to least trusted. */
export type SecurityTier = (typeof SECURITY_TIERS)[number];

/** USD per million tokens. */
export interface ModelPricing {
  readonly input: number;
  readonly output: number;
  /** Price of cached input reads; when absent, 10% of `input`. */
  readonly cachedInput?: number;
  /** Price of input written to the upstream's prompt cache (Anthropic's cache writes); when absent, 125% of `input`. */
  readonly cacheWrite?: number;
}

/** The public description of a model (spec: "Model description"). */
export interface ModelInfo {
  /** The id clients send. */
  readonly key: string;
  /** The id the upstream knows. */
  readonly modelId: string;
  readonly displayName: string;
  /** `offline`, or the name of the upstream in the models file (openai, anthropic, azure, mistral, vllm, …). */
  readonly provider: string;
  readonly kind: ModelKind;
  readonly region: string;
  readonly securityTier: SecurityTier;
  readonly locationLabel: string;
  readonly tags: readonly string[];
  readonly pricing: ModelPricing;
  /** Calls are covered by the instance's subscription (flat-rate or self-hosted) rather than billed per call. */
  readonly includedUsage: boolean;
  /** Tokens the model reads at once, prompt and answer together: what a conversation's history must fit in. */
  readonly contextWindow: number;
}

/** A model as configured: its public description plus how to reach it. */
export interface ModelConfig extends ModelInfo {
  /** The wire its upstream speaks (absent: offline). */
  readonly providerType?: ProviderType;
  /** Upstream base URL; never chosen by a client. */
  readonly baseUrl?: string;
  /** Azure OpenAI's `api-version` query parameter (type `azure`). */
  readonly apiVersion?: string;
  /** The AWS region requests are signed for (type `bedrock`). */
  readonly awsRegion?: string;
  /** Name of the environment variable holding the upstream key; the key itself is never in configuration files. */
  readonly apiKeyEnv?: string;
  readonly timeoutMs: number;
  /**
   * `responses`: the upstream also speaks OpenAI's Responses API, and the gateway's `POST /responses` passes requests
   * to it as they are instead of translating them to chat completions (every other route still uses chat completions).
   */
  readonly api?: 'responses';
  /**
   * The upstreams that serve this key, when it has several (the models file's `deployments`): calls are spread by
   * weight among the healthy ones and move to another when one fails (the gateway's router). Absent: the model itself
   * is its one deployment.
   */
  readonly deployments?: readonly DeploymentConfig[];
  /** Other model keys tried, in order, once every deployment of this one failed. */
  readonly fallbacks?: readonly string[];
  /** Requests per minute this upstream takes (the router passes over it beyond that). */
  readonly rpm?: number;
  /** Tokens (input and output) per minute this upstream takes. */
  readonly tpm?: number;
}

/** One upstream of a model key: the model as it reaches that upstream (its key stays the model's), weighted. */
export interface DeploymentConfig extends Omit<ModelConfig, 'deployments' | 'fallbacks'> {
  /** Names it in usage, metrics and health: `<model key>/<name or index>`. */
  readonly deploymentId: string;
  readonly weight: number;
}

/** The description without how to reach the model (URL, key variable, timeout). */
export const toModelInfo = ({
  baseUrl: _baseUrl,
  apiKeyEnv: _apiKeyEnv,
  timeoutMs: _timeoutMs,
  api: _api,
  providerType: _providerType,
  apiVersion: _apiVersion,
  awsRegion: _awsRegion,
  rpm: _rpm,
  tpm: _tpm,
  deployments: _deployments,
  fallbacks: _fallbacks,
  ...info
}: ModelConfig): ModelInfo => info;

/** "a chat model", "an embedding model", "an image model": the kind with its article. */
export const kindWithArticle = (kind: string): string => `${/^[aeiou]/i.test(kind) ? 'an' : 'a'} ${kind}`;
