// A Space's spend limit (issue 22 §5): tokens and/or billable cost per week over every call made for an Agent of the
// Space (its conversation turns and their tool steps, generate endpoints, memory extraction, compaction, the
// embeddings of its Knowledge), whoever makes it, beside the key's and the user's limits. The week starts at the
// Space's creation (plus whole weeks), as a user's starts at their registration. Same policies as a user's limit:
// `block` refuses a call that would pass it, `allow` lets it through and reports the overage. One stream per Space
// (`space-spend-<spaceId>`); every change is an event and applies from that moment. A limit an admin set is the
// admins' to change or remove: the Space's owners may not lift the cap put on their Space (they set and remove their
// own while no admin-set limit exists).
import { forbidden } from '#access';
import { ValidationError, type DomainEvent } from '#kernel';
import type { Decider } from '#eventsourcing';
import type { UserSpendLimit } from './user-spend.js';

/** The same shape as a user's limit: tokens and/or cost per week, and the overage policy. */
export type SpaceSpendLimit = UserSpendLimit;

/** Who set a limit: an instance admin, or someone who changes the Space (its owners). */
export type SpendLimitSetter = 'admin' | 'owner';

export type SpaceSpendEvent = DomainEvent<
  'SpaceSpendLimitChanged',
  {
    readonly spaceId: string;
    readonly limit: SpaceSpendLimit | null;
    /** Absent on changes recorded before it was kept: read as `owner`. */
    readonly setBy?: SpendLimitSetter;
  }
>;

export interface SpaceSpendState {
  readonly limit: SpaceSpendLimit | null;
  readonly setBy: SpendLimitSetter;
}

export interface ChangeSpaceSpendLimit {
  readonly spaceId: string;
  /** null removes the limit. */
  readonly limit: SpaceSpendLimit | null;
  readonly by: SpendLimitSetter;
}

export const spaceSpendStreamId = (spaceId: string): string => `space-spend-${spaceId}`;

const same = (a: SpaceSpendLimit | null, b: SpaceSpendLimit | null): boolean =>
  a === b || (!!a && !!b && a.tokens === b.tokens && a.costUsd === b.costUsd && a.overage === b.overage);

export const spaceSpendDecider: Decider<SpaceSpendState, ChangeSpaceSpendLimit, SpaceSpendEvent> = {
  initialState: () => ({ limit: null, setBy: 'owner' }),
  evolve: (_state, event) => ({ limit: event.data.limit, setBy: event.data.setBy ?? 'owner' }),
  decide: (command, state) => {
    const { limit, by } = command;
    if (limit && limit.tokens === null && limit.costUsd === null)
      throw new ValidationError('invalid_usage_limit', 'a Space limit needs tokens or costUsd', 'tokens');
    if (state.limit && state.setBy === 'admin' && by !== 'admin')
      throw forbidden(
        'spend_limit_set_by_admin',
        "an admin set this Space's spend limit: only an admin changes or removes it",
      );
    if (same(limit, state.limit)) return [];
    return [{ type: 'SpaceSpendLimitChanged', data: { spaceId: command.spaceId, limit, setBy: by } }];
  },
};
