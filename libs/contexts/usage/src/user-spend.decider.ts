// A user's spend limit's one command and its pure decision: a limit names tokens or cost, and an event is recorded
// only when it changes.
import { ValidationError } from '#kernel';
import type { Decider } from '#eventsourcing';
import {
  evolveUserSpend,
  initialUserSpendState,
  sameLimit,
  type UserSpendEvent,
  type UserSpendLimit,
  type UserSpendState,
} from './user-spend.js';

export interface ChangeUserSpendLimit {
  readonly userId: string;
  /** null removes the limit. */
  readonly limit: UserSpendLimit | null;
}

function changeUserSpendLimit(
  { userId, limit }: ChangeUserSpendLimit,
  state: UserSpendState,
): UserSpendEvent[] {
  if (limit && limit.tokens === null && limit.costUsd === null)
    throw new ValidationError('invalid_usage_limit', 'a user limit needs tokens or costUsd', 'tokens');
  if (sameLimit(limit, state.limit)) return [];
  return [{ type: 'UserSpendLimitChanged', data: { userId, limit } }];
}

export const userSpendDecider: Decider<UserSpendState, ChangeUserSpendLimit, UserSpendEvent> = {
  initialState: initialUserSpendState,
  evolve: evolveUserSpend,
  decide: changeUserSpendLimit,
};
