// A Space's spend limit's one command and its pure decision: a limit names tokens or cost, one an admin set is the
// admins' to change, and an event is recorded only when it changes.
import { forbidden } from '#access';
import { ValidationError } from '#kernel';
import type { Decider } from '#eventsourcing';
import {
  evolveSpaceSpend,
  initialSpaceSpendState,
  type SpaceSpendEvent,
  type SpaceSpendLimit,
  type SpaceSpendState,
  type SpendLimitSetter,
} from './space-spend.js';
import { sameLimit } from './user-spend.js';

export interface ChangeSpaceSpendLimit {
  readonly spaceId: string;
  /** null removes the limit. */
  readonly limit: SpaceSpendLimit | null;
  readonly by: SpendLimitSetter;
}

function changeSpaceSpendLimit(
  { spaceId, limit, by }: ChangeSpaceSpendLimit,
  state: SpaceSpendState,
): SpaceSpendEvent[] {
  if (limit && limit.tokens === null && limit.costUsd === null)
    throw new ValidationError('invalid_usage_limit', 'a Space limit needs tokens or costUsd', 'tokens');
  if (state.limit && state.setBy === 'admin' && by !== 'admin')
    throw forbidden(
      'spend_limit_set_by_admin',
      "an admin set this Space's spend limit: only an admin changes or removes it",
    );
  if (sameLimit(limit, state.limit)) return [];
  return [{ type: 'SpaceSpendLimitChanged', data: { spaceId, limit, setBy: by } }];
}

export const spaceSpendDecider: Decider<SpaceSpendState, ChangeSpaceSpendLimit, SpaceSpendEvent> = {
  initialState: initialSpaceSpendState,
  evolve: evolveSpaceSpend,
  decide: changeSpaceSpendLimit,
};
