// Enforces an API key's usage limit (tokens and/or billable cost per day, week or month). Each call reserves an
// estimate before it goes upstream and settles to its real usage after, and a call is admitted only while what is used
// plus what is reserved stays under the limit; so concurrent calls overshoot the limit by at most what the calls
// already in flight use beyond their estimates. A window's usage is folded from the key's day streams (the log),
// plus this process's calls not yet appended, and is refreshed from the log so other processes' calls count too.
import { Injectable } from '@nestjs/common';
import { PlatformError } from '#kernel';
import { AggregateRepository } from '#eventsourcing';
import type { CallerKey, UsageLimit } from '#access';
import { usageDecider } from './usage.decider.js';
import { usageStreamId } from './usage.events.js';
import { UsageRecorder } from './usage-recorder.js';
import { windowDays, windowResetsAt } from './usage-window.js';

const WINDOW_NAMES = { day: 'daily', week: 'weekly', month: 'monthly' } as const;

/**
 * 429 with `Retry-After` (seconds until the window resets) and `x-should-retry: false`: the limit will not lift
 * before then, so SDKs (openai, the Vercel AI SDK) must not retry it at once.
 */
export class UsageLimitExceededError extends PlatformError {
  constructor(message: string, resetsAt: Date, now: Date) {
    super('rate_limited', 'usage_limit_exceeded', message);
    const seconds = Math.max(1, Math.ceil((resetsAt.getTime() - now.getTime()) / 1000));
    this.headers = { 'retry-after': String(seconds), 'x-should-retry': 'false' };
  }
}

export interface UsageAmount {
  readonly tokens: number;
  readonly costUsd: number;
}

/** What a call is expected to use: `certain` (its input, counted) must fit; `allowance` (its output) is reserved. */
export interface UsageEstimate extends UsageAmount {
  readonly certain: UsageAmount;
}

export interface Reservation {
  /** Replaces the estimate with what the call really used (billable cost only). */
  settle(actual: UsageAmount): void;
}

interface WindowState {
  readonly firstDay: string;
  used: UsageAmount;
  reserved: UsageAmount;
  loadedAt: number;
  refreshing: Promise<void> | null;
}

const NO_LIMIT: Reservation = { settle: () => undefined };
const REFRESH_MS = 10_000;

const add = (a: UsageAmount, b: UsageAmount, sign = 1): UsageAmount => ({
  tokens: a.tokens + sign * b.tokens,
  costUsd: a.costUsd + sign * b.costUsd,
});

@Injectable()
export class UsageLimiter {
  private readonly windows = new Map<string, WindowState>();
  private readonly loading = new Map<string, Promise<WindowState>>();

  constructor(
    private readonly aggregates: AggregateRepository,
    private readonly recorder: UsageRecorder,
  ) {}

  /** Admits a call or throws 429 `usage_limit_exceeded`; the reservation must be settled when the call ends. */
  async reserve(apiKey: CallerKey, estimate: UsageEstimate, now = new Date()): Promise<Reservation> {
    const limit = apiKey.usageLimit;
    if (!limit || (limit.tokens === null && limit.costUsd === null)) return NO_LIMIT;
    const state = await this.window(apiKey.id, limit, now);
    // Admitted only if what the call certainly uses (its input, counted with the tokenizer) still fits beside what is
    // used and reserved: a call whose input alone would pass the limit is refused, whatever its language.
    const committed = add(add(state.used, state.reserved), estimate.certain);
    const overTokens = limit.tokens !== null && committed.tokens > limit.tokens;
    const overCost = limit.costUsd !== null && committed.costUsd > limit.costUsd;
    if (overTokens || overCost) {
      const resetsAt = windowResetsAt(limit.window, now);
      throw new UsageLimitExceededError(
        `this API key's ${WINDOW_NAMES[limit.window]} usage limit (${describe(limit)}) is used up, or too little ` +
          `of it is left for this call; it resets at ${resetsAt}`,
        new Date(resetsAt),
        now,
      );
    }
    const reserved: UsageAmount = { tokens: estimate.tokens, costUsd: estimate.costUsd };
    state.reserved = add(state.reserved, reserved);
    let settled = false;
    return {
      settle: (actual) => {
        if (settled) return;
        settled = true;
        state.reserved = add(state.reserved, reserved, -1);
        state.used = add(state.used, actual);
      },
    };
  }

  /** What the key has used in its current window (for display); null when it has no limit. */
  async used(apiKey: CallerKey, now = new Date()): Promise<UsageAmount | null> {
    const limit = apiKey.usageLimit;
    if (!limit) return null;
    return (await this.window(apiKey.id, limit, now)).used;
  }

  private async window(apiKeyId: string, limit: UsageLimit, now: Date): Promise<WindowState> {
    const days = windowDays(limit.window, now);
    const cacheKey = `${apiKeyId}:${limit.window}`;
    const current = this.windows.get(cacheKey);
    if (current && current.firstDay === days[0]) {
      if (Date.now() - current.loadedAt > REFRESH_MS && !current.refreshing)
        current.refreshing = this.fromLog(apiKeyId, days)
          .then((used) => {
            // Calls settled locally since are either in the log now or still unflushed: both are counted.
            current.used = used;
            current.loadedAt = Date.now();
          })
          .catch(() => undefined)
          .finally(() => {
            current.refreshing = null;
          });
      return current;
    }
    let loading = this.loading.get(cacheKey);
    if (!loading) {
      loading = this.fromLog(apiKeyId, days)
        .then((used) => {
          const state: WindowState = {
            firstDay: days[0]!,
            used,
            reserved: { tokens: 0, costUsd: 0 },
            loadedAt: Date.now(),
            refreshing: null,
          };
          this.windows.set(cacheKey, state);
          return state;
        })
        .finally(() => this.loading.delete(cacheKey));
      this.loading.set(cacheKey, loading);
    }
    return loading;
  }

  private async fromLog(apiKeyId: string, days: readonly string[]): Promise<UsageAmount> {
    const pending = this.recorder.pendingFor(apiKeyId);
    let used: UsageAmount = { tokens: pending.tokens, costUsd: pending.billableCostUsd };
    for (const day of days) {
      const { state } = await this.aggregates.load(usageStreamId(apiKeyId, day), usageDecider);
      used = add(used, { tokens: state.tokens, costUsd: state.billableCostUsd });
    }
    return used;
  }
}

function describe(limit: UsageLimit): string {
  const parts: string[] = [];
  if (limit.tokens !== null) parts.push(`${limit.tokens} tokens`);
  if (limit.costUsd !== null) parts.push(`$${limit.costUsd}`);
  return parts.join(' or ');
}
