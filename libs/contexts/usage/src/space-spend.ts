// A Space's spend limit (issue 22 §5): tokens and/or billable cost per week over every call made for an Agent of the
// Space (its conversation turns and their tool steps, generate endpoints, memory extraction, compaction, the
// embeddings of its Knowledge), whoever makes it, beside the key's and the user's limits. The week starts at the
// Space's creation (plus whole weeks), as a user's starts at their registration. Same policies as a user's limit:
// `block` refuses a call that would pass it, `allow` lets it through and reports the overage. One stream per Space
// (`space-spend-<spaceId>`); every change is an event and applies from that moment. A limit an admin set is the
// admins' to change or remove: the Space's owners may not lift the cap put on their Space (they set and remove their
// own while no admin-set limit exists).
import type { DomainEvent } from '#kernel';
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

export const spaceSpendStreamId = (spaceId: string): string => `space-spend-${spaceId}`;

export const initialSpaceSpendState = (): SpaceSpendState => ({ limit: null, setBy: 'owner' });

export const evolveSpaceSpend = (_state: SpaceSpendState, event: SpaceSpendEvent): SpaceSpendState => ({
  limit: event.data.limit,
  setBy: event.data.setBy ?? 'owner',
});
