// Read model of Spaces for GET /spaces: one document per live Space.
import type { EventEnvelope } from '../../libs/kernel/src/index.js';
import type { Projector } from '../../libs/eventsourcing/src/projector.js';
import type { WriteOp } from '../../libs/read-store/src/read-store.port.js';
import { SPACE_EVENT_TYPES, type SpaceEvent } from '../../libs/spaces/src/space.events.js';

export interface SpaceView {
  readonly id: string;
  readonly name: string;
  readonly slug: string;
  readonly description: string;
  readonly color: string;
  /** The API key that created it (from the event's actor): it may change the Space. */
  readonly createdByApiKeyId: string | null;
  readonly createdAt: string;
  readonly updatedAt: string;
}

export const SPACES = 'spaces';

export const spacesProjector: Projector = {
  name: 'spaces',
  version: 2,
  collections: [
    {
      name: SPACES,
      indexes: [
        { fields: ['createdAt'] },
        { fields: ['name'] },
        { fields: ['slug'] },
        { fields: ['createdByApiKeyId'] },
      ],
    },
  ],
  eventTypes: SPACE_EVENT_TYPES,
  project(envelope: EventEnvelope): WriteOp[] {
    const event = envelope as unknown as SpaceEvent;
    const at = envelope.metadata.occurredAt;
    const id = event.data.spaceId;
    switch (event.type) {
      case 'SpaceCreated': {
        const { spaceId: _spaceId, ...fields } = event.data;
        const { actor } = envelope.metadata;
        const createdByApiKeyId = actor.kind === 'apiKey' ? actor.id : null;
        return [
          {
            kind: 'upsert',
            collection: SPACES,
            doc: { id, ...fields, createdByApiKeyId, createdAt: at, updatedAt: at },
          },
        ];
      }
      case 'SpaceRenamed':
        return [{ kind: 'patch', collection: SPACES, id, set: { name: event.data.name, updatedAt: at } }];
      case 'SpaceSlugChanged':
        return [{ kind: 'patch', collection: SPACES, id, set: { slug: event.data.slug, updatedAt: at } }];
      case 'SpaceDescriptionChanged':
        return [
          {
            kind: 'patch',
            collection: SPACES,
            id,
            set: { description: event.data.description, updatedAt: at },
          },
        ];
      case 'SpaceColorChanged':
        return [{ kind: 'patch', collection: SPACES, id, set: { color: event.data.color, updatedAt: at } }];
      case 'SpaceDeleted':
        return [{ kind: 'delete', collection: SPACES, id }];
    }
  },
};
