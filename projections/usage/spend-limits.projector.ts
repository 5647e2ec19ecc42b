// Builds the spend limits read model (libs/contexts/usage/src/spend-limits.read-model.ts): each user's and Space's current
// weekly limit, from the events that change them.
import { defineProjector } from '#eventsourcing';
import type { SpaceSpendEvent, UserSpendEvent } from '#usage';
import { SPEND_LIMITS, SPEND_LIMITS_READ_MODEL, spendLimitId } from '#usage';

export const spendLimitsProjector = defineProjector<UserSpendEvent | SpaceSpendEvent>({
  name: SPEND_LIMITS_READ_MODEL.projection,
  version: 1,
  collections: [SPEND_LIMITS_READ_MODEL],
  on: {
    UserSpendLimitChanged: ({ data, metadata: { occurredAt } }) => [
      {
        kind: 'upsert',
        collection: SPEND_LIMITS,
        doc: {
          id: spendLimitId('user', data.userId),
          scope: 'user',
          subject: data.userId,
          limit: data.limit,
          updatedAt: occurredAt,
        },
      },
    ],
    SpaceSpendLimitChanged: ({ data, metadata: { occurredAt } }) => [
      {
        kind: 'upsert',
        collection: SPEND_LIMITS,
        doc: {
          id: spendLimitId('space', data.spaceId),
          scope: 'space',
          subject: data.spaceId,
          limit: data.limit,
          updatedAt: occurredAt,
        },
      },
    ],
  },
});
