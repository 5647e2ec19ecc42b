// The Spaces read model (GET /spaces and every Space check): one document per live Space. Built by
// projections/spaces.
import { defineReadModel } from '#eventsourcing';
import type { SpaceRole } from './space.events.js';

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
  /**
   * Its members' roles by user id: what the policy reads to resolve a principal's role (kept on the Space's document
   * so that every loader that reads the Space has them). Never answered as is: GET /spaces/{id}/members lists them.
   */
  readonly members?: Readonly<Record<string, SpaceRole>>;
  /** A user's private personal Space: that user's id (absent on shared Spaces). */
  readonly personalOf?: string | null;
  readonly createdAt: string;
  readonly updatedAt: string;
}

export const SPACES = 'spaces';

/** One membership: a user's role in a Space (id `<spaceId>:<userId>`). */
export interface SpaceMemberView {
  readonly id: string;
  readonly spaceId: string;
  readonly userId: string;
  readonly role: SpaceRole;
  readonly addedAt: string;
  readonly updatedAt: string;
}

export const SPACE_MEMBERS = 'space_members';
export const spaceMemberId = (spaceId: string, userId: string) => `${spaceId}:${userId}`;

export const SPACES_READ_MODEL = defineReadModel<SpaceView>({
  name: SPACES,
  projection: 'spaces',
  indexes: [
    { fields: ['createdAt'] },
    { fields: ['name'] },
    { fields: ['slug'] },
    { fields: ['createdByApiKeyId'] },
    { fields: ['createdByUserId'] },
    { fields: ['personalOf'] },
  ],
});

export const SPACE_MEMBERS_READ_MODEL = defineReadModel<SpaceMemberView>({
  name: SPACE_MEMBERS,
  projection: 'spaces',
  indexes: [{ fields: ['spaceId', 'addedAt'] }, { fields: ['userId'] }],
});

/**
 * A Space as the API answers it: without the members map (listed by its own route, to whoever may read it), and
 * whether it is its user's private personal Space.
 */
export const spaceReply = ({
  members: _members,
  personalOf,
  ...space
}: SpaceView): SpaceView & { readonly isPersonal: boolean } => ({ ...space, isPersonal: !!personalOf });
