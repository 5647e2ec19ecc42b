// A user's spend limit (issue 22 §5): tokens and/or billable cost per week, each user's week starting at their
// `usageWindowStart` (their registration until changed), with an overage policy: `block` refuses a call that would
// pass the limit (429 `usage_limit_exceeded`), `allow` lets it through and reports the excess as overage. One stream
// per user (`user-spend-<userId>`); every change is an event and applies from that moment (to the usage already
// counted in the window too).
import { ValidationError, type DomainEvent } from '#kernel';
import type { Decider } from '#eventsourcing';

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

export interface ChangeUserSpendLimit {
  readonly userId: string;
  /** null removes the limit. */
  readonly limit: UserSpendLimit | null;
}

export const userSpendStreamId = (userId: string): string => `user-spend-${userId}`;

const same = (a: UserSpendLimit | null, b: UserSpendLimit | null): boolean =>
  a === b || (!!a && !!b && a.tokens === b.tokens && a.costUsd === b.costUsd && a.overage === b.overage);

export const userSpendDecider: Decider<UserSpendState, ChangeUserSpendLimit, UserSpendEvent> = {
  initialState: () => ({ limit: null }),
  evolve: (_state, event) => ({ limit: event.data.limit }),
  decide: (command, state) => {
    const { limit } = command;
    if (limit && limit.tokens === null && limit.costUsd === null)
      throw new ValidationError('invalid_usage_limit', 'a user limit needs tokens or costUsd', 'tokens');
    if (same(limit, state.limit)) return [];
    return [{ type: 'UserSpendLimitChanged', data: { userId: command.userId, limit } }];
  },
};

export const WEEK_MS = 7 * 86_400_000;

/** The user's week that contains `now`: it starts at `anchor` plus a whole number of weeks, and resets 7 days later. */
export function userWindow(anchor: string, now: Date): { readonly start: Date; readonly resetsAt: Date } {
  const from = Date.parse(anchor);
  const weeks = Math.floor((now.getTime() - from) / WEEK_MS);
  const start = from + weeks * WEEK_MS;
  return { start: new Date(start), resetsAt: new Date(start + WEEK_MS) };
}
