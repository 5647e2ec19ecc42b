// Builds the Spaces read model (libs/contexts/spaces/src/spaces.read-model.ts).
import { defineProjector } from '#eventsourcing';
import type { WriteOp } from '#read-store';
import type {
  PeopleDirectoryEvent,
  SpaceCreationEvent,
  SpaceMemberView,
  SpaceRole,
  SpaceView,
  SpaceEvent,
} from '#spaces';
import {
  PEOPLE_DIRECTORY_ID,
  SPACE_CREATION_ID,
  SPACE_MEMBERS,
  SPACE_MEMBERS_READ_MODEL,
  SPACE_SETTINGS,
  SPACE_SETTINGS_READ_MODEL,
  spaceMemberId,
  SPACES,
  SPACES_READ_MODEL,
} from '#spaces';
import type { ProjectionContext } from '#eventsourcing';

const patch = (id: string, set: Partial<SpaceView>, at: string): WriteOp[] => [
  { kind: 'patch', collection: SPACES, id, set: { ...set, updatedAt: at } },
];

export const spacesProjector = defineProjector<SpaceEvent | SpaceCreationEvent | PeopleDirectoryEvent>({
  name: SPACES_READ_MODEL.projection,
  // 3: the creating user of a Space created through a session (createdByUserId). 4: members (the map on the Space's
  // document the policy reads, and one document per membership) and who may create Spaces (the instance setting).
  version: 4,
  collections: [SPACES_READ_MODEL, SPACE_MEMBERS_READ_MODEL, SPACE_SETTINGS_READ_MODEL],
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
    SpaceDeleted: async ({ data }, context) => [
      { kind: 'delete', collection: SPACES, id: data.spaceId },
      ...Object.keys((await context.get<SpaceView>(SPACES, data.spaceId))?.members ?? {}).map(
        (userId): WriteOp => ({
          kind: 'delete',
          collection: SPACE_MEMBERS,
          id: spaceMemberId(data.spaceId, userId),
        }),
      ),
    ],
    SpaceMemberAdded: ({ data, metadata }, context) =>
      setMember(context, data.spaceId, data.userId, data.role, metadata.occurredAt),
    SpaceMemberRoleChanged: ({ data, metadata }, context) =>
      setMember(context, data.spaceId, data.userId, data.role, metadata.occurredAt),
    SpaceMemberRemoved: ({ data, metadata }, context) =>
      setMember(context, data.spaceId, data.userId, null, metadata.occurredAt),
    SpaceCreationRolesSet: ({ data, metadata }) => [
      {
        kind: 'upsert',
        collection: SPACE_SETTINGS,
        doc: { id: SPACE_CREATION_ID, creatorRoles: data.creatorRoles, updatedAt: metadata.occurredAt },
      },
    ],
    PeopleDirectoryOpened: ({ metadata }) => [
      {
        kind: 'upsert',
        collection: SPACE_SETTINGS,
        doc: { id: PEOPLE_DIRECTORY_ID, open: true, updatedAt: metadata.occurredAt },
      },
    ],
    PeopleDirectoryClosed: ({ metadata }) => [
      {
        kind: 'upsert',
        collection: SPACE_SETTINGS,
        doc: { id: PEOPLE_DIRECTORY_ID, open: false, updatedAt: metadata.occurredAt },
      },
    ],
  },
});

/** A membership set (or removed: null) on both the Space's members map and its own document; idempotent. */
async function setMember(
  context: ProjectionContext,
  spaceId: string,
  userId: string,
  role: SpaceRole | null,
  at: string,
): Promise<WriteOp[]> {
  const space = await context.get<SpaceView>(SPACES, spaceId);
  if (!space) return [];
  const { [userId]: _previous, ...others } = space.members ?? {};
  const members = role === null ? others : { ...others, [userId]: role };
  const id = spaceMemberId(spaceId, userId);
  const existing = await context.get<SpaceMemberView>(SPACE_MEMBERS, id);
  return [
    { kind: 'patch', collection: SPACES, id: spaceId, set: { members } },
    role === null
      ? { kind: 'delete', collection: SPACE_MEMBERS, id }
      : {
          kind: 'upsert',
          collection: SPACE_MEMBERS,
          doc: { id, spaceId, userId, role, addedAt: existing?.addedAt ?? at, updatedAt: at },
        },
  ];
}
