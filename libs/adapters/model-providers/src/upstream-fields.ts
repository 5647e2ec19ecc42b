// How an upstream is reached, as the models file says it on a provider, a model or a deployment (the nearest wins):
// its wire type, URL, key variable, timeout and the type's own settings; and how those layers resolve into what a
// model or deployment calls.
import { z } from 'zod';
import { MODEL_KINDS, PROVIDER_TYPES, type ModelKind, type ProviderType } from './model.js';

export const ENV_NAME = /^[A-Z_][A-Z0-9_]*$/;

/**
 * Where each provider type is reached when the file names no `baseUrl` (the vendor's public endpoint; Bedrock's
 * names the AWS region), and the kinds of model it serves. `openai` and `azure` need a `baseUrl`.
 */
export const PROVIDER_TYPE_DEFAULTS: Readonly<
  Record<ProviderType, { readonly baseUrl?: string; readonly kinds: readonly ModelKind[] }>
> = {
  openai: { kinds: MODEL_KINDS },
  azure: { kinds: ['chat', 'embedding', 'image', 'speech', 'transcription'] },
  anthropic: { baseUrl: 'https://api.anthropic.com/v1', kinds: ['chat'] },
  google: { baseUrl: 'https://generativelanguage.googleapis.com/v1beta', kinds: ['chat', 'embedding'] },
  bedrock: { baseUrl: 'https://bedrock-runtime.{awsRegion}.amazonaws.com', kinds: ['chat', 'embedding'] },
  ollama: { baseUrl: 'http://127.0.0.1:11434', kinds: ['chat', 'embedding'] },
};

/** An AWS region name (`eu-central-1`), as Bedrock's endpoint and signatures use it. */
const AWS_REGION = /^[a-z]{2}(-[a-z]+)+-\d$/;

/** How an upstream is reached: the fields a provider, a model and a deployment may each say (the nearest wins). */
export const UpstreamFields = {
  /** The wire it speaks (default `openai`). */
  type: z.enum(PROVIDER_TYPES).optional(),
  baseUrl: z.url().optional(),
  apiKeyEnv: z.string().regex(ENV_NAME, 'an environment variable name').optional(),
  timeoutMs: z.number().int().min(100).max(600_000).optional(),
  /** Azure OpenAI's `api-version`. */
  apiVersion: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}(-preview)?$/, 'an api-version such as 2024-10-21')
    .optional(),
  /** The AWS region Bedrock requests are signed for. */
  awsRegion: z.string().regex(AWS_REGION, 'an AWS region such as eu-central-1').optional(),
};

/** Rate limits of one upstream (a model entry or a deployment; not inherited from a provider). */
export const RateLimitFields = {
  /** Requests per minute it takes. */
  rpm: z.number().int().min(1).optional(),
  /** Tokens (input and output) per minute it takes. */
  tpm: z.number().int().min(1).optional(),
};

export type UpstreamLayer = {
  readonly [K in keyof typeof UpstreamFields]?: z.output<(typeof UpstreamFields)[K]>;
};

export interface ResolvedUpstream {
  readonly providerType: ProviderType;
  readonly baseUrl?: string;
  readonly apiKeyEnv?: string;
  readonly timeoutMs?: number;
  readonly apiVersion?: string;
  readonly awsRegion?: string;
}

export class UpstreamFieldsError extends Error {}

/**
 * The upstream of `name` (a model key or deployment id) from its layers, nearest first: each field from the first
 * layer that says it; the type's public endpoint when no layer names a URL. Throws when a URL is needed and missing,
 * when the type serves no model of this kind, or when Azure lacks its api-version or Bedrock its region.
 */
export function resolveUpstream(
  name: string,
  provider: string,
  kind: ModelKind,
  layers: readonly (UpstreamLayer | undefined)[],
): ResolvedUpstream {
  const pick = <K extends keyof UpstreamLayer>(field: K): UpstreamLayer[K] =>
    layers.find((layer) => layer?.[field] !== undefined)?.[field];
  const providerType = pick('type') ?? 'openai';
  const defaults = PROVIDER_TYPE_DEFAULTS[providerType];
  if (!defaults.kinds.includes(kind))
    throw new UpstreamFieldsError(
      `${name}: provider type '${providerType}' serves ${defaults.kinds.join(', ')} models, not ${kind}`,
    );
  const awsRegion = pick('awsRegion');
  const apiVersion = pick('apiVersion');
  if (providerType === 'bedrock' && !awsRegion)
    throw new UpstreamFieldsError(`${name}: provider type 'bedrock' needs an awsRegion`);
  if (providerType === 'azure' && !apiVersion)
    throw new UpstreamFieldsError(`${name}: provider type 'azure' needs an apiVersion`);
  const baseUrl = pick('baseUrl') ?? defaults.baseUrl?.replace('{awsRegion}', awsRegion ?? '');
  if (!baseUrl) throw new UpstreamFieldsError(`${name}: provider '${provider}' needs a baseUrl`);
  const apiKeyEnv = pick('apiKeyEnv');
  const timeoutMs = pick('timeoutMs');
  return {
    providerType,
    baseUrl,
    ...(apiKeyEnv ? { apiKeyEnv } : {}),
    ...(timeoutMs ? { timeoutMs } : {}),
    ...(apiVersion ? { apiVersion } : {}),
    ...(awsRegion ? { awsRegion } : {}),
  };
}
