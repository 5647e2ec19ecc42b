// The model registry: the models an instance allows, from the YAML file named by MODELS_FILE (in the spirit of
// LiteLLM's config) plus the offline models that are always there, so a fresh machine works without any key.
// Upstream keys are referenced by environment variable name and resolved once; they never appear in a model's
// description, a log line or an error.
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { lazyModule, type PlatformConfig } from '#kernel';
import {
  kindWithArticle,
  toModelInfo,
  type DeploymentConfig,
  type ModelConfig,
  type ModelInfo,
  type ModelKind,
} from './model.js';
import { resolveSecurityTier } from './security-tier.js';
import { checkFallbacks, DeploymentsError, withDeployments } from './model-deployments.js';
import {
  ModelEntry,
  ModelsFile,
  ModelsFileError,
  OFFLINE,
  SMALL_CONTEXT_WINDOW,
  UPSTREAM_CHAT_CONTEXT_WINDOW,
} from './models-file.js';

import { resolveUpstream, UpstreamFieldsError, type ResolvedUpstream } from './upstream-fields.js';

export { ModelsFileError, type ModelsFileContent } from './models-file.js';

/** AWS credentials (Bedrock's SigV4 signing), from the standard variables; read once, like the upstream keys. */
export interface AwsCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
}

/** The AWS credentials the variables hold; undefined unless both the key id and the secret are set. */
function readAwsCredentials(secret: PlatformConfig['secret']): AwsCredentials | undefined {
  const accessKeyId = secret('AWS_ACCESS_KEY_ID');
  const secretAccessKey = secret('AWS_SECRET_ACCESS_KEY');
  const sessionToken = secret('AWS_SESSION_TOKEN');
  if (!accessKeyId || !secretAccessKey) return undefined;
  return { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) };
}

// yaml is required when a MODELS_FILE is read, not at start-up (the built-in models need none).
const yaml = lazyModule<typeof import('yaml')>('yaml');

export class ModelRegistry {
  private readonly byKey: ReadonlyMap<string, ModelConfig>;

  private constructor(
    models: readonly ModelConfig[],
    private readonly defaults: Partial<Record<ModelKind, string>>,
    private readonly rerankerKey: string,
    private readonly keys: ReadonlyMap<string, string>,
    readonly hostingRegion: string,
    /** Models whose upstream key variable is not set: listed, but calls answer 502. */
    readonly missingKeys: readonly { model: string; variable: string }[],
    private readonly aws?: AwsCredentials,
  ) {
    this.byKey = new Map(models.map((model) => [model.key, model]));
  }

  static fromConfig(config: PlatformConfig): ModelRegistry {
    let content: unknown = {};
    if (config.modelsFile) {
      try {
        content = yaml().parse(readFileSync(config.modelsFile, 'utf8')) ?? {};
      } catch (error) {
        throw new ModelsFileError(`MODELS_FILE ${config.modelsFile}: ${(error as Error).message}`);
      }
    }
    return ModelRegistry.build(content, config);
  }

  static build(
    content: unknown,
    config: Pick<
      PlatformConfig,
      'hostingRegion' | 'upstreamTimeoutMs' | 'secret' | 'defaultChatModelOverride'
    >,
  ): ModelRegistry {
    const parsed = ModelsFile.safeParse(content);
    if (!parsed.success) {
      const problems = parsed.error.issues.map(
        (issue) => `${issue.path.join('.') || '(file)'}: ${issue.message}`,
      );
      throw new ModelsFileError(`invalid models file:\n  ${problems.join('\n  ')}`);
    }
    const file = parsed.data;
    const hostingRegion = file.hostingRegion ?? config.hostingRegion;
    const models: ModelConfig[] = [];
    const keys = new Map<string, string>();
    const missingKeys: { model: string; variable: string }[] = [];
    const seen = new Set<string>();
    const lowerTierAllowed = new Set<string>();

    for (const entry of file.models) {
      if (seen.has(entry.key)) throw new ModelsFileError(`model key '${entry.key}' is defined twice`);
      seen.add(entry.key);
      const model = ModelRegistry.entryModel(entry, file, hostingRegion, config, keys, missingKeys);
      if (entry.fallbackToLowerTier) lowerTierAllowed.add(entry.key);
      models.push(
        entry.deployments
          ? ModelRegistry.deployed(model, entry, file, hostingRegion, config, keys, missingKeys)
          : model,
      );
    }
    for (const offline of OFFLINE) {
      if (seen.has(offline.key)) continue;
      models.push({
        ...offline,
        modelId: offline.key,
        provider: 'offline',
        region: hostingRegion,
        securityTier: 'secure',
        locationLabel: 'this instance',
        pricing: { input: 0, output: 0 },
        includedUsage: true,
        contextWindow: SMALL_CONTEXT_WINDOW,
        timeoutMs: config.upstreamTimeoutMs,
      });
    }

    const byKey = new Map(models.map((model) => [model.key, model]));
    try {
      checkFallbacks(byKey, lowerTierAllowed);
    } catch (error) {
      if (error instanceof DeploymentsError) throw new ModelsFileError(error.message);
      throw error;
    }
    const defaults: Partial<Record<ModelKind, string>> = {
      chat: 'offline-chat',
      embedding: 'offline-embed',
      image: 'offline-image',
      speech: 'offline-speech',
      transcription: 'offline-transcribe',
      ...file.defaults,
      ...(config.defaultChatModelOverride ? { chat: config.defaultChatModelOverride } : {}),
    };
    for (const [kind, key] of Object.entries(defaults)) {
      const model = byKey.get(key);
      if (!model) throw new ModelsFileError(`default ${kind} model '${key}' is not a configured model`);
      if (model.kind !== kind)
        throw new ModelsFileError(`default ${kind} model '${key}' is ${kindWithArticle(model.kind)} model`);
    }
    const reranker = file.reranker ?? 'offline-rerank';
    if (byKey.get(reranker)?.kind !== 'rerank')
      throw new ModelsFileError(`reranker '${reranker}' is not a configured rerank model`);
    // Bedrock signs with the AWS variables unless its upstream names a Bedrock API key (`apiKeyEnv`).
    const aws = readAwsCredentials(config.secret);
    for (const model of models)
      for (const upstream of model.deployments ?? [model])
        if (upstream.providerType === 'bedrock' && !upstream.apiKeyEnv && !aws)
          missingKeys.push({
            model: (upstream as Partial<DeploymentConfig>).deploymentId ?? upstream.key,
            variable: config.secret('AWS_ACCESS_KEY_ID') ? 'AWS_SECRET_ACCESS_KEY' : 'AWS_ACCESS_KEY_ID',
          });
    return new ModelRegistry(models, defaults, reranker, keys, hostingRegion, missingKeys, aws);
  }

  /** An entry as a model (its upstream's URL, key variable and timeout inherited); its key read from `secret`. */
  private static entryModel(
    entry: z.output<typeof ModelEntry>,
    file: z.output<typeof ModelsFile>,
    hostingRegion: string,
    config: Pick<PlatformConfig, 'upstreamTimeoutMs' | 'secret'>,
    keys: Map<string, string>,
    missingKeys: { model: string; variable: string }[],
  ): ModelConfig {
    const upstream = ModelRegistry.upstream(entry, file);
    if (entry.api === 'responses' && (entry.provider === 'offline' || entry.kind !== 'chat'))
      throw new ModelsFileError(`model '${entry.key}': api 'responses' is for upstream chat models only`);
    if (entry.api === 'responses' && upstream && upstream.providerType !== 'openai')
      throw new ModelsFileError(`model '${entry.key}': api 'responses' is for provider type 'openai' only`);
    const apiKeyEnv = upstream?.apiKeyEnv;
    if (apiKeyEnv) {
      const value = config.secret(apiKeyEnv);
      if (value) keys.set(entry.key, value);
      else missingKeys.push({ model: entry.key, variable: apiKeyEnv });
    }
    return {
      key: entry.key,
      modelId: entry.modelId ?? entry.key,
      displayName: entry.displayName ?? entry.key,
      provider: entry.provider,
      kind: entry.kind,
      region: entry.region ?? '',
      securityTier: resolveSecurityTier(entry.securityTier, entry.region, hostingRegion),
      locationLabel: entry.locationLabel ?? entry.region ?? '',
      tags: entry.tags,
      pricing: entry.pricing,
      includedUsage: entry.includedUsage,
      contextWindow:
        entry.contextWindow ??
        (entry.kind === 'chat' && entry.provider !== 'offline'
          ? UPSTREAM_CHAT_CONTEXT_WINDOW
          : SMALL_CONTEXT_WINDOW),
      ...upstream,
      timeoutMs: upstream?.timeoutMs ?? entry.timeoutMs ?? config.upstreamTimeoutMs,
      ...(entry.api === 'responses' ? { api: 'responses' as const } : {}),
      ...(entry.fallbacks?.length ? { fallbacks: entry.fallbacks } : {}),
      ...(entry.rpm !== undefined ? { rpm: entry.rpm } : {}),
      ...(entry.tpm !== undefined ? { tpm: entry.tpm } : {}),
    };
  }

  /** How an entry reaches its upstream (undefined for an offline model): the entry, then its named provider. */
  private static upstream(
    entry: z.output<typeof ModelEntry>,
    file: z.output<typeof ModelsFile>,
  ): ResolvedUpstream | undefined {
    if (entry.provider === 'offline') return undefined;
    try {
      return resolveUpstream(`model '${entry.key}'`, entry.provider, entry.kind, [
        entry,
        file.providers[entry.provider],
      ]);
    } catch (error) {
      if (error instanceof UpstreamFieldsError) throw new ModelsFileError(error.message);
      throw error;
    }
  }

  private static deployed(
    model: ModelConfig,
    entry: z.output<typeof ModelEntry>,
    file: z.output<typeof ModelsFile>,
    hostingRegion: string,
    config: Pick<PlatformConfig, 'upstreamTimeoutMs' | 'secret'>,
    keys: Map<string, string>,
    missingKeys: { model: string; variable: string }[],
  ): ModelConfig {
    if (entry.api === 'responses')
      throw new ModelsFileError(`model '${entry.key}': api 'responses' takes no deployments`);
    if (entry.rpm !== undefined || entry.tpm !== undefined)
      throw new ModelsFileError(`model '${entry.key}': with deployments, rpm and tpm go on each deployment`);
    try {
      return withDeployments(
        {
          model,
          entry,
          deployments: entry.deployments ?? [],
          providers: file.providers,
          hostingRegion,
          upstreamTimeoutMs: config.upstreamTimeoutMs,
        },
        (variable) => config.secret(variable),
        keys,
        missingKeys,
      );
    } catch (error) {
      if (error instanceof DeploymentsError) throw new ModelsFileError(error.message);
      throw error;
    }
  }

  get(key: string): ModelConfig | undefined {
    return this.byKey.get(key);
  }

  list(kinds?: readonly ModelKind[]): ModelConfig[] {
    const all = [...this.byKey.values()];
    return kinds ? all.filter((model) => kinds.includes(model.kind)) : all;
  }

  infos(kinds?: readonly ModelKind[]): ModelInfo[] {
    return this.list(kinds).map(toModelInfo);
  }

  defaultModel(kind: ModelKind): ModelConfig | undefined {
    const key = this.defaults[kind];
    return key ? this.byKey.get(key) : undefined;
  }

  reranker(): ModelConfig {
    return this.byKey.get(this.rerankerKey)!;
  }

  /** The AWS credentials a Bedrock model (or deployment) signs with; undefined when the variables are not set. */
  awsCredentials(_model: ModelConfig): AwsCredentials | undefined {
    return this.aws;
  }

  /** The upstream key of a model (or of one of its deployments), for its provider only. */
  upstreamKey(model: ModelConfig): string | undefined {
    return this.keys.get((model as Partial<DeploymentConfig>).deploymentId ?? model.key);
  }
}
