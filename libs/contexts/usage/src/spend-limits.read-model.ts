// The spend limits read model: one document per user (`user:<userId>`) and per Space (`space:<spaceId>`) that has or
// had a weekly spend limit, so the gateway keeps them in memory (SpendLimits) instead of reading a stream per call.
// Built by projections/usage/spend-limits.projector.ts from UserSpendLimitChanged and SpaceSpendLimitChanged.
import { defineReadModel } from '#eventsourcing';
import type { UserSpendLimit } from './user-spend.js';

export type SpendScope = 'user' | 'space';

export interface SpendLimitView {
  /** `<scope>:<subject>`. */
  readonly id: string;
  readonly scope: SpendScope;
  readonly subject: string;
  /** null: the limit was removed. */
  readonly limit: UserSpendLimit | null;
  readonly updatedAt: string;
}

export const SPEND_LIMITS = 'spend_limits';

export const SPEND_LIMITS_READ_MODEL = defineReadModel<SpendLimitView>({
  name: SPEND_LIMITS,
  projection: 'spend-limits',
  indexes: [{ fields: ['scope'] }],
});

export const spendLimitId = (scope: SpendScope, subject: string): string => `${scope}:${subject}`;
