// Builds the Spaces read model (libs/spaces/src/spaces.read-model.ts).
import { defineProjector } from '#eventsourcing';
import type { WriteOp } from '#read-store';
import type { SpaceView, SpaceEvent } from '#spaces';
import { SPACES, SPACES_READ_MODEL } from '#spaces';

const patch = (id: string, set: Partial<SpaceView>, at: string): WriteOp[] => [
  { kind: 'patch', collection: SPACES, id, set: { ...set, updatedAt: at } },
];

export const spacesProjector = defineProjector<SpaceEvent>({
  name: SPACES_READ_MODEL.projection,
  // 3: the creating user of a Space created through a session (createdByUserId).
  version: 3,
  collections: [SPACES_READ_MODEL],
  on: {
    SpaceCreated: ({ data: { spaceId: id, ...fields }, metadata: { actor, occurredAt: at } }) => [
      {
        kind: 'upsert',
        collection: SPACES,
        doc: {
          id,
          ...fields,
          createdByApiKeyId: actor.kind === 'apiKey' ? actor.id : null,
          createdByUserId: actor.kind === 'user' ? actor.id : null,
          createdAt: at,
          updatedAt: at,
        },
      },
    ],
    SpaceRenamed: ({ data, metadata }) => patch(data.spaceId, { name: data.name }, metadata.occurredAt),
    SpaceSlugChanged: ({ data, metadata }) => patch(data.spaceId, { slug: data.slug }, metadata.occurredAt),
    SpaceDescriptionChanged: ({ data, metadata }) =>
      patch(data.spaceId, { description: data.description }, metadata.occurredAt),
    SpaceColorChanged: ({ data, metadata }) =>
      patch(data.spaceId, { color: data.color }, metadata.occurredAt),
    SpaceDeleted: ({ data }) => [{ kind: 'delete', collection: SPACES, id: data.spaceId }],
  },
});
