// Per-deployment rate limits (`rpm`, `tpm` in the models file): the requests and tokens each deployment took in the
// last minute, counted in one-second buckets, so the router passes over a deployment that has used its allowance
// (the provider would answer 429) and the gateway answers 429 itself, with when to come back, when none is left.
import type { DeploymentConfig, ModelConfig } from '#model-providers';

const SECONDS = 60;

/** Counts over the last minute in one-second buckets. */
class MinuteWindow {
  private readonly buckets = new Float64Array(SECONDS);
  private readonly seconds = new Float64Array(SECONDS);

  add(amount: number, now: number): void {
    const second = Math.floor(now / 1000);
    const slot = second % SECONDS;
    if (this.seconds[slot] !== second) {
      this.seconds[slot] = second;
      this.buckets[slot] = 0;
    }
    this.buckets[slot] += amount;
  }

  sum(now: number): number {
    const second = Math.floor(now / 1000);
    let total = 0;
    for (let slot = 0; slot < SECONDS; slot++)
      if (second - this.seconds[slot]! < SECONDS) total += this.buckets[slot]!;
    return total;
  }

  /** Milliseconds until the oldest counted second leaves the window. */
  frees(now: number): number {
    const second = Math.floor(now / 1000);
    let oldest = second;
    for (let slot = 0; slot < SECONDS; slot++) {
      const at = this.seconds[slot]!;
      if (this.buckets[slot]! > 0 && second - at < SECONDS && at < oldest) oldest = at;
    }
    return (oldest + SECONDS) * 1000 - now;
  }
}

type Limited = Pick<DeploymentConfig, 'rpm' | 'tpm'>;

export const hasLimits = (target: ModelConfig): boolean => {
  const limits = target as Limited;
  return limits.rpm !== undefined || limits.tpm !== undefined;
};

export class DeploymentLimits {
  private readonly requests = new Map<string, MinuteWindow>();
  private readonly tokens = new Map<string, MinuteWindow>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Whether the deployment may take another request now (its requests and tokens of the last minute under limit). */
  open(deployment: string, target: ModelConfig): boolean {
    const { rpm, tpm } = target as Limited;
    const now = this.now();
    if (rpm !== undefined && (this.requests.get(deployment)?.sum(now) ?? 0) >= rpm) return false;
    if (tpm !== undefined && (this.tokens.get(deployment)?.sum(now) ?? 0) >= tpm) return false;
    return true;
  }

  /** A try starts: one request. */
  request(deployment: string, target: ModelConfig): void {
    if ((target as Limited).rpm === undefined) return;
    this.window(this.requests, deployment).add(1, this.now());
  }

  /** A call ended: the tokens it used (input and output). */
  spent(deployment: string, target: ModelConfig, tokens: number): void {
    if ((target as Limited).tpm === undefined || tokens <= 0) return;
    this.window(this.tokens, deployment).add(tokens, this.now());
  }

  /** Milliseconds until one of these closed deployments takes a request again. */
  reopens(deployments: readonly string[]): number {
    const now = this.now();
    const waits = deployments.flatMap((deployment) =>
      [this.requests.get(deployment), this.tokens.get(deployment)].flatMap((window) =>
        window ? [window.frees(now)] : [],
      ),
    );
    return waits.length ? Math.max(1000, Math.min(SECONDS * 1000, ...waits)) : 1000;
  }

  private window(windows: Map<string, MinuteWindow>, deployment: string): MinuteWindow {
    let window = windows.get(deployment);
    if (!window) windows.set(deployment, (window = new MinuteWindow()));
    return window;
  }
}
