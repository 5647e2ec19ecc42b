// The Spaces read model (GET /spaces and every Space check): one document per live Space. Built by
// projections/spaces.
import { defineReadModel } from '#eventsourcing';

export interface SpaceView {
  readonly id: string;
  readonly name: string;
  readonly slug: string;
  readonly description: string;
  readonly color: string;
  /** The API key that created it (from the event's actor): it may change the Space. */
  readonly createdByApiKeyId: string | null;
  /** The user who created it signed in (a session; from the event's actor): their sessions may change the Space. */
  readonly createdByUserId?: string | null;
  readonly createdAt: string;
  readonly updatedAt: string;
}

export const SPACES = 'spaces';

export const SPACES_READ_MODEL = defineReadModel<SpaceView>({
  name: SPACES,
  projection: 'spaces',
  indexes: [
    { fields: ['createdAt'] },
    { fields: ['name'] },
    { fields: ['slug'] },
    { fields: ['createdByApiKeyId'] },
    { fields: ['createdByUserId'] },
  ],
});
