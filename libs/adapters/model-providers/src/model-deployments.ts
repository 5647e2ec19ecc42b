// A model key served by several upstreams (`deployments` in the models file) and the keys it falls back to
// (`fallbacks`): each deployment inherits what its entry and its provider say unless it says otherwise, and the key's
// public security tier is that of its least trusted deployment (a client choosing by tier is never surprised). A
// fallback must be a configured model of the same kind that is no less trusted, unless the entry allows it
// (`fallbackToLowerTier: true`): a `secure` model never quietly answers from a public cloud.
import { z } from 'zod';
import { SECURITY_TIERS, type DeploymentConfig, type ModelConfig, type SecurityTier } from './model.js';
import { resolveSecurityTier } from './security-tier.js';
import {
  RateLimitFields,
  resolveUpstream,
  UpstreamFields,
  UpstreamFieldsError,
  type UpstreamLayer,
} from './upstream-fields.js';

export const DeploymentEntry = z.strictObject({
  /** Names the deployment in usage, metrics and health (default: its position, from 1). */
  name: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/)
    .optional(),
  provider: z.string().min(1).optional(),
  modelId: z.string().min(1).optional(),
  ...UpstreamFields,
  ...RateLimitFields,
  region: z.string().optional(),
  securityTier: z.enum(SECURITY_TIERS).optional(),
  weight: z.number().min(0).max(1_000_000).default(1),
});
export type DeploymentEntry = z.output<typeof DeploymentEntry>;

/** What an entry's deployments are built from: the entry as the registry read it, its file's providers. */
export interface DeploymentSource {
  readonly model: ModelConfig;
  readonly entry: { readonly region?: string | undefined; readonly securityTier?: SecurityTier | undefined };
  readonly deployments: readonly DeploymentEntry[];
  readonly providers: Readonly<Record<string, UpstreamLayer>>;
  readonly hostingRegion: string;
  readonly upstreamTimeoutMs: number;
}

export class DeploymentsError extends Error {}

const rank = (tier: SecurityTier): number => SECURITY_TIERS.indexOf(tier);

/** The model with its deployments, its public tier the least trusted of theirs; upstream keys read by `secret`. */
export function withDeployments(
  source: DeploymentSource,
  secret: (variable: string) => string | undefined,
  keys: Map<string, string>,
  missingKeys: { model: string; variable: string }[],
): ModelConfig {
  const { model, entry, providers } = source;
  const deployments = source.deployments.map((deployment, index): DeploymentConfig => {
    const provider = deployment.provider ?? model.provider;
    const deploymentId = `${model.key}/${deployment.name ?? index + 1}`;
    if (provider === 'offline')
      throw new DeploymentsError(`deployment '${deploymentId}': an offline model has no deployments`);
    // A deployment naming another provider reaches it as that provider says; otherwise as its model does.
    const inherited: UpstreamLayer = deployment.provider
      ? (providers[provider] ?? {})
      : {
          type: model.providerType,
          baseUrl: model.baseUrl,
          apiKeyEnv: model.apiKeyEnv,
          apiVersion: model.apiVersion,
          awsRegion: model.awsRegion,
        };
    let upstream;
    try {
      upstream = resolveUpstream(`deployment '${deploymentId}'`, provider, model.kind, [
        deployment,
        inherited,
      ]);
    } catch (error) {
      if (error instanceof UpstreamFieldsError) throw new DeploymentsError(error.message);
      throw error;
    }
    const apiKeyEnv = upstream.apiKeyEnv;
    if (apiKeyEnv) {
      const value = secret(apiKeyEnv);
      if (value) keys.set(deploymentId, value);
      else missingKeys.push({ model: deploymentId, variable: apiKeyEnv });
    }
    const region = deployment.region ?? entry.region ?? '';
    const { deployments: _d, fallbacks: _f, apiKeyEnv: _k, apiVersion: _v, awsRegion: _r, ...base } = model;
    return {
      ...base,
      ...upstream,
      deploymentId,
      weight: deployment.weight,
      provider,
      modelId: deployment.modelId ?? model.modelId,
      timeoutMs: upstream.timeoutMs ?? model.timeoutMs,
      ...(deployment.rpm !== undefined ? { rpm: deployment.rpm } : {}),
      ...(deployment.tpm !== undefined ? { tpm: deployment.tpm } : {}),
      region,
      securityTier: resolveSecurityTier(
        deployment.securityTier ?? entry.securityTier,
        region || undefined,
        source.hostingRegion,
      ),
    };
  });
  const least = deployments.reduce<SecurityTier>(
    (tier, deployment) => (rank(deployment.securityTier) > rank(tier) ? deployment.securityTier : tier),
    model.securityTier,
  );
  return { ...model, securityTier: least, deployments };
}

/** Every fallback a configured model of the same kind, not itself, and no less trusted unless the entry allows it. */
export function checkFallbacks(
  models: ReadonlyMap<string, ModelConfig>,
  lowerTierAllowed: ReadonlySet<string>,
): void {
  for (const model of models.values())
    for (const key of model.fallbacks ?? []) {
      const fallback = models.get(key);
      if (!fallback)
        throw new DeploymentsError(`model '${model.key}': fallback '${key}' is not a configured model`);
      if (key === model.key) throw new DeploymentsError(`model '${model.key}' cannot fall back to itself`);
      if (fallback.kind !== model.kind)
        throw new DeploymentsError(`model '${model.key}': fallback '${key}' is a ${fallback.kind} model`);
      if (rank(fallback.securityTier) > rank(model.securityTier) && !lowerTierAllowed.has(model.key))
        throw new DeploymentsError(
          `model '${model.key}' (${model.securityTier}) cannot fall back to '${key}' (${fallback.securityTier}): ` +
            'set fallbackToLowerTier: true to allow it',
        );
    }
}
