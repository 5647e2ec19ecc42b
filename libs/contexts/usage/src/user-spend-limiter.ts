// Enforces users' and Spaces' weekly spend limits beside the key's (the ModelGateway asks all three before every call:
// a call made for an Agent of a Space counts toward the Space, whoever makes it). A call is
// admitted when `spent + reserved + estimate ≤ limit` (policy `block`); its estimate is reserved before it goes
// upstream and settled to its real usage after, so racing calls overshoot only by what calls use beyond their
// estimates. Policy `allow` admits every call and reports the excess as overage. The week's usage is seeded from the
// usage read model's per-user (per-Space) days (the window's first day counts whole: calls earlier that day are
// counted too, the conservative side), then kept here and refreshed from the read model so other processes' calls
// count too. A user's week starts at their usageWindowStart, a Space's at its creation (plus whole weeks).
import { Inject, Injectable } from '@nestjs/common';
import { USERS, type UserView } from '#identity';
import { READ_STORE, type ReadStore } from '#read-store';
import { SPACES, type SpaceView } from '#spaces';
import { UsageLimitExceededError, type Reservation, type UsageAmount } from './usage-limiter.js';
import { USAGE_DAILY, usageDayId, type UsageDayView } from './usage.read-model.js';
import { utcDay } from './usage.events.js';
import { SpendLimits } from './spend-limits.js';
import { spendLimitId, type SpendScope } from './spend-limits.read-model.js';
import { userWindow, type UserSpendLimit } from './user-spend.js';

interface UserWindowState {
  readonly start: number;
  readonly resetsAt: Date;
  used: UsageAmount;
  reserved: UsageAmount;
  loadedAt: number;
  refreshing: Promise<void> | null;
}

/** Whose week: a user's or a Space's. */
export interface SpendSubject {
  readonly scope: SpendScope;
  readonly id: string;
}

/** A limit and where its current week stands. */
export interface SpendStatus {
  readonly limit: UserSpendLimit | null;
  readonly windowStart: string;
  readonly resetsAt: string;
  readonly used: UsageAmount;
  /** What the week used beyond the limit (policy `allow`; 0 when within it). */
  readonly overage: UsageAmount;
}

/** A user's limit and where their current week stands. */
export interface UserSpendStatus extends SpendStatus {
  readonly userId: string;
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
    private readonly limits: SpendLimits,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
  ) {}

  /** The user's limit (null: none), kept in memory (SpendLimits). */
  limitOf(userId: string): Promise<UserSpendLimit | null> {
    return this.limits.of('user', userId);
  }

  /** The Space's limit (null: none), kept in memory (SpendLimits). */
  spaceLimitOf(spaceId: string): Promise<UserSpendLimit | null> {
    return this.limits.of('space', spaceId);
  }

  /** Admits a call against the user's limit or throws 429 `usage_limit_exceeded` (policy `block`). */
  reserve(
    userId: string,
    estimate: UsageAmount,
    now = new Date(),
    /** The user's limit when the caller has just read it (the gateway does): not read twice. */
    known?: UserSpendLimit | null,
  ): Promise<Reservation> {
    return this.reserveFor({ scope: 'user', id: userId }, estimate, now, known);
  }

  /** Admits a call against the user's or Space's limit or throws 429 `usage_limit_exceeded` (policy `block`). */
  async reserveFor(
    subject: SpendSubject,
    estimate: UsageAmount,
    now = new Date(),
    known?: UserSpendLimit | null,
  ): Promise<Reservation> {
    const limit = known !== undefined ? known : await this.limits.of(subject.scope, subject.id);
    if (!limit) return NO_LIMIT;
    const state = await this.window(subject, now);
    if (limit.overage === 'block') {
      const committed = add(add(state.used, state.reserved), estimate);
      const overTokens = limit.tokens !== null && committed.tokens > limit.tokens;
      const overCost = limit.costUsd !== null && committed.costUsd > limit.costUsd;
      if (overTokens || overCost)
        throw new UsageLimitExceededError(
          `${subject.scope === 'user' ? 'your' : `the Space ${subject.id}'s`} weekly usage limit (${describe(limit)}) is used up, or too little of it is left for this call; ` +
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
    return { userId, ...(await this.statusOf({ scope: 'user', id: userId }, now)) };
  }

  /** The user's or Space's limit, the week's usage, its overage and when it resets. */
  async statusOf(subject: SpendSubject, now = new Date()): Promise<SpendStatus> {
    const limit = await this.limits.of(subject.scope, subject.id);
    const state = await this.window(subject, now);
    const used = { tokens: state.used.tokens, costUsd: round(state.used.costUsd) };
    const overage = {
      tokens: limit?.tokens != null ? Math.max(0, used.tokens - limit.tokens) : 0,
      costUsd: limit?.costUsd != null ? Math.max(0, round(used.costUsd - limit.costUsd)) : 0,
    };
    return {
      limit,
      windowStart: new Date(state.start).toISOString(),
      resetsAt: state.resetsAt.toISOString(),
      used,
      overage,
    };
  }

  private async window(subject: SpendSubject, now: Date): Promise<UserWindowState> {
    const key = spendLimitId(subject.scope, subject.id);
    const current = this.windows.get(key);
    if (current && now.getTime() >= current.start && now < current.resetsAt) {
      if (Date.now() - current.loadedAt > REFRESH_MS && !current.refreshing)
        current.refreshing = this.fromReadModel(subject, current.start, now)
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
    let loading = this.loading.get(key);
    if (!loading) {
      loading = this.load(subject, now).finally(() => this.loading.delete(key));
      this.loading.set(key, loading);
    }
    return loading;
  }

  /** When the subject's weeks start: the user's usageWindowStart, the Space's creation. */
  private async anchorOf(subject: SpendSubject): Promise<string | undefined> {
    if (subject.scope === 'space')
      return (await this.readStore.reader<SpaceView>(SPACES).get(subject.id))?.createdAt;
    const user = await this.readStore.reader<UserView>(USERS).get(subject.id);
    return user?.usageWindowStart ?? user?.createdAt;
  }

  private async load(subject: SpendSubject, now: Date): Promise<UserWindowState> {
    // A user (Space) not (yet) in the read model: weeks counted from their first call's moment.
    const anchor = (await this.anchorOf(subject)) ?? now.toISOString();
    const { start, resetsAt } = userWindow(anchor, now);
    const state: UserWindowState = {
      start: start.getTime(),
      resetsAt,
      used: await this.fromReadModel(subject, start.getTime(), now),
      reserved: ZERO,
      loadedAt: Date.now(),
      refreshing: null,
    };
    this.windows.set(spendLimitId(subject.scope, subject.id), state);
    return state;
  }

  private async fromReadModel(subject: SpendSubject, start: number, now: Date): Promise<UsageAmount> {
    const days = this.readStore.reader<UsageDayView>(USAGE_DAILY);
    let used = ZERO;
    const first = Date.parse(utcDay(new Date(start)));
    for (let at = first; at <= now.getTime(); at += DAY_MS) {
      const day = await days.get(usageDayId(subject.scope, subject.id, utcDay(new Date(at))));
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
