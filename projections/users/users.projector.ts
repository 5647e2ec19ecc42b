// Read model of users (owners of API keys).
import type { EventEnvelope } from '../../libs/kernel/src/index.js';
import type { Projector } from '../../libs/eventsourcing/src/projector.js';
import type { WriteOp } from '../../libs/read-store/src/read-store.port.js';
import { USER_EVENT_TYPES, type UserEvent, type UserRole } from '../../libs/identity/src/user.events.js';

export interface UserView {
  readonly id: string;
  readonly email: string;
  readonly name: string;
  readonly role: UserRole;
  readonly createdAt: string;
}

export const USERS = 'users';

export const usersProjector: Projector = {
  name: 'users',
  version: 1,
  collections: [{ name: USERS, indexes: [{ fields: ['email'] }, { fields: ['createdAt'] }] }],
  eventTypes: USER_EVENT_TYPES,
  project(envelope: EventEnvelope): WriteOp[] {
    const event = envelope as unknown as UserEvent;
    const { userId, ...fields } = event.data;
    return [
      {
        kind: 'upsert',
        collection: USERS,
        doc: { id: userId, ...fields, createdAt: envelope.metadata.occurredAt },
      },
    ];
  },
};
