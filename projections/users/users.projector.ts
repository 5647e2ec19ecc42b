// Builds the users read model (libs/identity/src/users.read-model.ts).
import { defineProjector } from '#eventsourcing';
import type { UserEvent } from '#identity';
import { USERS, USERS_READ_MODEL } from '#identity';

export const usersProjector = defineProjector<UserEvent>({
  name: USERS_READ_MODEL.projection,
  version: 1,
  collections: [USERS_READ_MODEL],
  on: {
    UserRegistered: ({ data: { userId, ...fields }, metadata }) => [
      { kind: 'upsert', collection: USERS, doc: { id: userId, ...fields, createdAt: metadata.occurredAt } },
    ],
  },
});
