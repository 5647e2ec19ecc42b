// Enforces users' weekly spend limits beside the key's (the ModelGateway asks both before every call). A call is
// admitted when `spent + reserved + estimate ≤ limit` (policy `block`); its estimate is reserved before it goes
// upstream and settled to its real usage after, so racing calls overshoot only by what calls use beyond their
// estimates. Policy `allow` admits every call and reports the excess as overage. The week's usage is seeded from the
// usage read model's per-user days (the window's first day counts whole: calls earlier that day are counted too, the
// conservative side), then kept here and refreshed from the read model so other processes' calls count too.
import { Inject, Injectable } from '@nestjs/common';
import { AggregateRepository } from '#eventsourcing';
import { USERS, type UserView } from '#identity';
import { READ_STORE, type ReadStore } from '#read-store';
import { UsageLimitExceededError, type Reservation, type UsageAmount } from './usage-limiter.js';
import { USAGE_DAILY, usageDayId, type UsageDayView } from './usage.read-model.js';
import { utcDay } from './usage.events.js';
import { userSpendDecider, userSpendStreamId, userWindow, type UserSpendLimit } from './user-spend.js';

interface UserWindowState {
  readonly start: number;
  readonly resetsAt: Date;
  used: UsageAmount;
  reserved: UsageAmount;
  loadedAt: number;
  refreshing: Promise<void> | null;
}

/** A user's limit and where their current week stands. */
export interface UserSpendStatus {
  readonly userId: string;
  readonly limit: UserSpendLimit | null;
  readonly windowStart: string;
  readonly resetsAt: string;
  readonly used: UsageAmount;
  /** What the week used beyond the limit (policy `allow`; 0 when within it). */
  readonly overage: UsageAmount;
}

const REFRESH_MS = 10_000;
const DAY_MS = 86_400_000;
const ZERO: UsageAmount = { tokens: 0, costUsd: 0 };
const NO_LIMIT: Reservation = { settle: () => undefined };
const add = (a: UsageAmount, b: UsageAmount, sign = 1): UsageAmount => ({
  tokens: a.tokens + sign * b.tokens,
  costUsd: a.costUsd + sign * b.costUsd,
});
const round = (usd: number) => Math.round(usd * 1e9) / 1e9;

@Injectable()
export class UserSpendLimiter {
  private readonly windows = new Map<string, UserWindowState>();
  private readonly loading = new Map<string, Promise<UserWindowState>>();

  constructor(
    private readonly aggregates: AggregateRepository,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
  ) {}

  /** The user's limit as the log has it (null: none). */
  async limitOf(userId: string): Promise<UserSpendLimit | null> {
    const { state } = await this.aggregates.load(userSpendStreamId(userId), userSpendDecider);
    return state.limit;
  }

  /** Admits a call against the user's limit or throws 429 `usage_limit_exceeded` (policy `block`). */
  async reserve(
    userId: string,
    estimate: UsageAmount,
    now = new Date(),
    /** The user's limit when the caller has just read it (the gateway does): not read from the log twice. */
    known?: UserSpendLimit | null,
  ): Promise<Reservation> {
    const limit = known !== undefined ? known : await this.limitOf(userId);
    if (!limit) return NO_LIMIT;
    const state = await this.window(userId, now);
    if (limit.overage === 'block') {
      const committed = add(add(state.used, state.reserved), estimate);
      const overTokens = limit.tokens !== null && committed.tokens > limit.tokens;
      const overCost = limit.costUsd !== null && committed.costUsd > limit.costUsd;
      if (overTokens || overCost)
        throw new UsageLimitExceededError(
          `your weekly usage limit (${describe(limit)}) is used up, or too little of it is left for this call; ` +
            `it resets at ${state.resetsAt.toISOString()}`,
          state.resetsAt,
          now,
        );
    }
    state.reserved = add(state.reserved, estimate);
    let settled = false;
    return {
      settle: (actual) => {
        if (settled) return;
        settled = true;
        state.reserved = add(state.reserved, estimate, -1);
        state.used = add(state.used, actual);
      },
    };
  }

  /** The user's limit, the week's usage, its overage and when it resets. */
  async status(userId: string, now = new Date()): Promise<UserSpendStatus> {
    const limit = await this.limitOf(userId);
    const state = await this.window(userId, now);
    const used = { tokens: state.used.tokens, costUsd: round(state.used.costUsd) };
    const overage = {
      tokens: limit?.tokens != null ? Math.max(0, used.tokens - limit.tokens) : 0,
      costUsd: limit?.costUsd != null ? Math.max(0, round(used.costUsd - limit.costUsd)) : 0,
    };
    return {
      userId,
      limit,
      windowStart: new Date(state.start).toISOString(),
      resetsAt: state.resetsAt.toISOString(),
      used,
      overage,
    };
  }

  private async window(userId: string, now: Date): Promise<UserWindowState> {
    const current = this.windows.get(userId);
    if (current && now.getTime() >= current.start && now < current.resetsAt) {
      if (Date.now() - current.loadedAt > REFRESH_MS && !current.refreshing)
        current.refreshing = this.fromReadModel(userId, current.start, now)
          .then((used) => {
            // The read model lags behind this process's settled calls: keep the larger of the two.
            current.used = {
              tokens: Math.max(current.used.tokens, used.tokens),
              costUsd: Math.max(current.used.costUsd, used.costUsd),
            };
            current.loadedAt = Date.now();
          })
          .catch(() => undefined)
          .finally(() => {
            current.refreshing = null;
          });
      return current;
    }
    let loading = this.loading.get(userId);
    if (!loading) {
      loading = this.load(userId, now).finally(() => this.loading.delete(userId));
      this.loading.set(userId, loading);
    }
    return loading;
  }

  private async load(userId: string, now: Date): Promise<UserWindowState> {
    const user = await this.readStore.reader<UserView>(USERS).get(userId);
    // A user not (yet) in the read model: weeks counted from their first call's moment.
    const anchor = user?.usageWindowStart ?? user?.createdAt ?? now.toISOString();
    const { start, resetsAt } = userWindow(anchor, now);
    const state: UserWindowState = {
      start: start.getTime(),
      resetsAt,
      used: await this.fromReadModel(userId, start.getTime(), now),
      reserved: ZERO,
      loadedAt: Date.now(),
      refreshing: null,
    };
    this.windows.set(userId, state);
    return state;
  }

  private async fromReadModel(userId: string, start: number, now: Date): Promise<UsageAmount> {
    const days = this.readStore.reader<UsageDayView>(USAGE_DAILY);
    let used = ZERO;
    const first = Date.parse(utcDay(new Date(start)));
    for (let at = first; at <= now.getTime(); at += DAY_MS) {
      const day = await days.get(usageDayId('user', userId, utcDay(new Date(at))));
      if (day) used = add(used, { tokens: day.inputTokens + day.outputTokens, costUsd: day.billableCostUsd });
    }
    return used;
  }
}

function describe(limit: UserSpendLimit): string {
  const parts: string[] = [];
  if (limit.tokens !== null) parts.push(`${limit.tokens} tokens`);
  if (limit.costUsd !== null) parts.push(`$${limit.costUsd}`);
  return parts.join(' or ');
}
