// What others hear of Space memberships (integration events, see #integration-events): a member was added, their
// role changed, they were removed (or left). Types `membership.<fact>.v1`. The Space's own fields stay inside.
import { defineIntegrationEvents } from '#integration-events';
import type { SpaceEvent } from './space.events.js';

export const MEMBERSHIP_INTEGRATION_EVENTS = defineIntegrationEvents<SpaceEvent>('membership', {
  SpaceMemberAdded: ({ data }) => ({
    fact: 'added',
    subject: { spaceId: data.spaceId, userId: data.userId },
    data: { role: data.role },
  }),
  SpaceMemberRoleChanged: ({ data }) => ({
    fact: 'role-changed',
    subject: { spaceId: data.spaceId, userId: data.userId },
    data: { role: data.role },
  }),
  SpaceMemberRemoved: ({ data }) => ({
    fact: 'removed',
    subject: { spaceId: data.spaceId, userId: data.userId },
    data: {},
  }),
  SpaceCreated: null,
  SpaceRenamed: null,
  SpaceSlugChanged: null,
  SpaceDescriptionChanged: null,
  SpaceColorChanged: null,
  SpaceDeleted: null,
});
