// The stored responses that still exist, with their owner and expiry (no words: those stay sealed in the log): what
// the sweeper reads to erase the expired ones. Built by projections/model-gateway/stored-responses.projector.ts.
import { defineReadModel } from '#eventsourcing';

export interface StoredResponseView {
  /** The response id. */
  readonly id: string;
  readonly userId: string;
  readonly expiresAt: string;
}

export const STORED_RESPONSES = 'stored_responses';

export const STORED_RESPONSES_READ_MODEL = defineReadModel<StoredResponseView>({
  name: STORED_RESPONSES,
  projection: 'stored-responses',
  indexes: [{ fields: ['expiresAt'] }, { fields: ['userId'] }],
});
