// A user's spend limit (issue 22 §5): tokens and/or billable cost per week, each user's week starting at their
// `usageWindowStart` (their registration until changed), with an overage policy: `block` refuses a call that would
// pass the limit (429 `usage_limit_exceeded`), `allow` lets it through and reports the excess as overage. One stream
// per user (`user-spend-<userId>`); every change is an event and applies from that moment (to the usage already
// counted in the window too). Its decider: user-spend.decider.ts.
import type { DomainEvent } from '#kernel';

export const OVERAGE_POLICIES = ['block', 'allow'] as const;
export type OveragePolicy = (typeof OVERAGE_POLICIES)[number];

export interface UserSpendLimit {
  /** Input plus output tokens per week; null for none. */
  readonly tokens: number | null;
  /** Billable USD per week (calls not covered by the subscription); null for none. */
  readonly costUsd: number | null;
  readonly overage: OveragePolicy;
}

export type UserSpendEvent = DomainEvent<
  'UserSpendLimitChanged',
  { readonly userId: string; readonly limit: UserSpendLimit | null }
>;

export interface UserSpendState {
  readonly limit: UserSpendLimit | null;
}

export const userSpendStreamId = (userId: string): string => `user-spend-${userId}`;

export const initialUserSpendState = (): UserSpendState => ({ limit: null });

export const evolveUserSpend = (_state: UserSpendState, event: UserSpendEvent): UserSpendState => ({
  limit: event.data.limit,
});

/** Two limits that say the same. */
export const sameLimit = (a: UserSpendLimit | null, b: UserSpendLimit | null): boolean =>
  a === b || (!!a && !!b && a.tokens === b.tokens && a.costUsd === b.costUsd && a.overage === b.overage);

export const WEEK_MS = 7 * 86_400_000;

/** The user's week that contains `now`: it starts at `anchor` plus a whole number of weeks, and resets 7 days later. */
export function userWindow(anchor: string, now: Date): { readonly start: Date; readonly resetsAt: Date } {
  const from = Date.parse(anchor);
  const weeks = Math.floor((now.getTime() - from) / WEEK_MS);
  const start = from + weeks * WEEK_MS;
  return { start: new Date(start), resetsAt: new Date(start + WEEK_MS) };
}
