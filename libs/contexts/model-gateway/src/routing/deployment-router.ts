// The router of a model key served by several deployments, or with fallbacks: a call goes to a healthy deployment
// drawn by weight, and when it fails in a way another try may not (a timeout, a reset, a 429, a 5xx), to the next —
// the key's other deployments, then each fallback key's — until one answers or the policy's tries are spent. A
// deployment that fails ROUTER_FAILURES_TO_COOLDOWN times in a row, or answers 429 with a Retry-After, cools down:
// it is tried only after the healthy ones until the cooldown ends. A try of a deployment already tried waits first
// (jittered exponential backoff, or the upstream's Retry-After, capped). A request the upstream refused as such (400,
// 413, 422: the same everywhere) is not tried again. Every try is recorded (which deployment, outcome, latency).
// A deployment with `rpm`/`tpm` that used its allowance of the minute is passed over (deployment-limits.ts).
// Held in memory per process: each api process learns its upstreams' health from its own calls.
import { setTimeout as sleep } from 'node:timers/promises';
import { PlatformError } from '#kernel';
import { DeploymentLimits, hasLimits } from './deployment-limits.js';
import {
  reasonOfStatus,
  UpstreamError,
  type DeploymentConfig,
  type ModelConfig,
  type ModelRegistry,
} from '#model-providers';

export interface RouterPolicy {
  /** Tries beyond the first, at least one per deployment in the plan. */
  readonly retries: number;
  readonly backoffMs: number;
  readonly maxBackoffMs: number;
  readonly failuresToCooldown: number;
  readonly cooldownMs: number;
}

/** One try of a routed call. */
export interface Attempt {
  /** `<model key>/<deployment>`, or the model key of a model without deployments. */
  readonly deployment: string;
  /** The model key it served (the requested one, or a fallback). */
  readonly model: string;
  readonly outcome: 'completed' | 'failed';
  /** The upstream's status when it answered with an error; `timeout` or `unreachable` otherwise. */
  readonly error?: string;
  /** Why the upstream refused, when it said. */
  readonly reason?: string;
  readonly latencyMs: number;
}

export interface DeploymentState {
  readonly deployment: string;
  readonly model: string;
  readonly state: 'healthy' | 'cooling';
  readonly consecutiveFailures: number;
  /** When a cooling deployment is tried first again (ISO 8601). */
  readonly coolingUntil: string | null;
}

/** A routed call that failed on every try: the last failure, with every try. */
export class RoutedCallFailed extends Error {
  constructor(
    readonly last: unknown,
    readonly attempts: readonly Attempt[],
  ) {
    super('every deployment failed');
  }
}

interface Health {
  failures: number;
  coolUntil: number;
}

export const deploymentOf = (target: ModelConfig): string =>
  (target as Partial<DeploymentConfig>).deploymentId ?? target.key;

const NOT_RETRIED = new Set([400, 413, 422]);

/** Whether another try (elsewhere, or later) may succeed where this one failed. */
export function retryable(error: unknown): boolean {
  if (!(error instanceof UpstreamError)) return false;
  if (error.kind !== 'rejected') return true;
  if (error.reason === 'context_length' || error.reason === 'bad_request') return false;
  return error.upstreamStatus === undefined || !NOT_RETRIED.has(error.upstreamStatus);
}

/** What failed, as usage events and metrics name it: the upstream's status, `timeout` or `unreachable`. */
export const errorOf = (error: unknown): string =>
  error instanceof UpstreamError
    ? error.upstreamStatus !== undefined
      ? String(error.upstreamStatus)
      : error.kind === 'timeout'
        ? 'timeout'
        : 'unreachable'
    : 'error';

/** The failure of a try: its error, and its reason when the upstream said why. */
const failureOf = (error: unknown) => {
  const reason =
    error instanceof UpstreamError ? (error.reason ?? reasonOfStatus(error.upstreamStatus)) : undefined;
  return { error: errorOf(error), ...(reason ? { reason } : {}) };
};

const weightOf = (target: ModelConfig): number => (target as Partial<DeploymentConfig>).weight ?? 1;

/** A weighted random order: each next one drawn with probability proportional to its weight (zero-weight last). */
function weightedOrder(items: readonly ModelConfig[], random: () => number): ModelConfig[] {
  const left = [...items];
  const order: ModelConfig[] = [];
  while (left.length > 0) {
    const total = left.reduce((sum, item) => sum + weightOf(item), 0);
    let draw = random() * total;
    let index = left.findIndex((item) => (draw -= weightOf(item)) < 0);
    if (index < 0) index = 0;
    order.push(...left.splice(index, 1));
  }
  return order;
}

export class DeploymentRouter {
  private readonly health = new Map<string, Health>();
  private readonly limits: DeploymentLimits;
  /** Tries by deployment and outcome since start (`/metrics`). */
  readonly tries = new Map<string, { completed: number; failed: number }>();

  constructor(
    private readonly registry: ModelRegistry,
    private readonly policy: RouterPolicy,
    private readonly random: () => number = Math.random,
    private readonly now: () => number = Date.now,
  ) {
    this.limits = new DeploymentLimits(now);
  }

  /** Whether calls of this model go through the router (it has deployments, fallbacks or rate limits). */
  static routes(model: ModelConfig): boolean {
    return model.deployments !== undefined || model.fallbacks !== undefined || hasLimits(model);
  }

  /**
   * The order this call tries: the key's deployments (healthy ones by weight, then cooling ones), then each
   * fallback's; a deployment that used its requests or tokens of the minute is left out.
   */
  plan(model: ModelConfig): ModelConfig[] {
    const plan = this.ordered(model);
    for (const key of model.fallbacks ?? []) {
      const fallback = this.registry.get(key);
      if (fallback) plan.push(...this.ordered(fallback));
    }
    return plan.filter((target) => this.limits.open(deploymentOf(target), target));
  }

  /** A routed call ended: the tokens it used count against the deployment that served it. */
  spent(served: ModelConfig, tokens: number): void {
    this.limits.spent(deploymentOf(served), served, tokens);
  }

  /** Tries `attempt` along the plan; the first success, with what served it and every try. */
  async run<T>(
    model: ModelConfig,
    signal: AbortSignal,
    attempt: (target: ModelConfig) => Promise<T>,
  ): Promise<{ readonly value: T; readonly served: ModelConfig; readonly attempts: Attempt[] }> {
    const plan = this.plan(model);
    if (plan.length === 0) throw this.allLimited(model);
    const tries = Math.max(plan.length, this.policy.retries + 1);
    const attempts: Attempt[] = [];
    let last: unknown;
    for (let index = 0; index < tries; index++) {
      const target = plan[index % plan.length]!;
      if (index >= plan.length) await sleep(this.wait(index - plan.length, last), undefined, { signal });
      const started = performance.now();
      const tried = { deployment: deploymentOf(target), model: target.key };
      this.limits.request(tried.deployment, target);
      try {
        const value = await attempt(target);
        this.health.delete(tried.deployment);
        this.count(tried.deployment, 'completed');
        attempts.push({ ...tried, outcome: 'completed', latencyMs: elapsed(started) });
        return { value, served: target, attempts };
      } catch (error) {
        attempts.push({ ...tried, outcome: 'failed', ...failureOf(error), latencyMs: elapsed(started) });
        this.count(tried.deployment, 'failed');
        if (signal.aborted || !retryable(error)) throw new RoutedCallFailed(error, attempts);
        this.failed(tried.deployment, error);
        last = error;
      }
    }
    throw new RoutedCallFailed(last, attempts);
  }

  /** Every upstream of the model (and its fallbacks) used its allowance of the minute: 429, with when to retry. */
  private allLimited(model: ModelConfig): PlatformError {
    const all = [model, ...(model.fallbacks ?? []).flatMap((key) => this.registry.get(key) ?? [])].flatMap(
      (each) => (each.deployments ?? [each]).map(deploymentOf),
    );
    const error = new PlatformError(
      'rate_limited',
      'deployment_limit_reached',
      `every upstream of model '${model.key}' has used its requests or tokens of this minute; retry later`,
    );
    error.headers = { 'retry-after': String(Math.ceil(this.limits.reopens(all) / 1000)) };
    return error;
  }

  /** Each deployment of the routed models this process called: healthy, or cooling until when. */
  states(): DeploymentState[] {
    const now = this.now();
    return this.registry
      .list(['chat'])
      .filter(DeploymentRouter.routes)
      .flatMap((model) => (model.deployments ?? [model]).map((target) => this.state(model.key, target, now)));
  }

  private state(model: string, target: ModelConfig, now: number): DeploymentState {
    const health = this.health.get(deploymentOf(target));
    const cooling = health !== undefined && health.coolUntil > now;
    return {
      deployment: deploymentOf(target),
      model,
      state: cooling ? 'cooling' : 'healthy',
      consecutiveFailures: health?.failures ?? 0,
      coolingUntil: cooling ? new Date(health.coolUntil).toISOString() : null,
    };
  }

  private count(deployment: string, outcome: 'completed' | 'failed'): void {
    const counts = this.tries.get(deployment) ?? { completed: 0, failed: 0 };
    counts[outcome]++;
    this.tries.set(deployment, counts);
  }

  private ordered(model: ModelConfig): ModelConfig[] {
    const now = this.now();
    const deployments: readonly ModelConfig[] = model.deployments ?? [model];
    const cooling = (target: ModelConfig) => (this.health.get(deploymentOf(target))?.coolUntil ?? 0) > now;
    return [
      ...weightedOrder(
        deployments.filter((target) => !cooling(target)),
        this.random,
      ),
      ...deployments.filter(cooling),
    ];
  }

  private failed(deployment: string, error: unknown): void {
    const health = this.health.get(deployment) ?? { failures: 0, coolUntil: 0 };
    health.failures++;
    const asked = error instanceof UpstreamError ? error.retryAfterMs : undefined;
    if (asked !== undefined) health.coolUntil = this.now() + asked;
    else if (health.failures >= this.policy.failuresToCooldown)
      health.coolUntil = this.now() + this.policy.cooldownMs;
    this.health.set(deployment, health);
  }

  /** How long before the `retry`th try of a deployment already tried: its Retry-After, else jittered backoff. */
  private wait(retry: number, last: unknown): number {
    const asked = last instanceof UpstreamError ? last.retryAfterMs : undefined;
    const backoff = Math.min(this.policy.maxBackoffMs, this.policy.backoffMs * 2 ** retry);
    return Math.min(this.policy.maxBackoffMs, asked ?? backoff * (0.5 + this.random() / 2));
  }
}

const elapsed = (started: number) => Math.round((performance.now() - started) * 10) / 10;
