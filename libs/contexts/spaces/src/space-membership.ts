// What a membership change reads: the Space (404 unless the principal may see its members: a role in it, or an
// admin), its creator (a Space from before members has its creator as owner) and the member's current role; and the
// asks of the policy (`space.members.read`, `space.member.change`: who may add, change, remove, leave; the rules are
// the policy's). The decider keeps the last owner.
import { NotFoundError, ValidationError } from '#kernel';
import { API_KEYS, USERS, type ApiKeyView, type UserView } from '#identity';
import { ask, type Ask } from '#access';
import type { ReadStore } from '#read-store';
import type { SpaceRole } from './space.events.js';
import { SPACES, type SpaceView } from './spaces.read-model.js';

export interface LoadedMembership {
  readonly space: SpaceView;
  /** Who created the Space (its owner when none is recorded); null when unknown (the platform made it). */
  readonly creatorUserId: string | null;
  readonly currentRole: SpaceRole | null;
}

/** The Space, or 404 (a handler's read: the gate asked before it). */
export async function spaceById(readStore: ReadStore, spaceId: string): Promise<SpaceView> {
  const space = await readStore.reader<SpaceView>(SPACES).get(spaceId);
  if (!space) throw new NotFoundError('Space', spaceId);
  return space;
}

/** The ask of seeing the Space's members: denied, 404 as for a Space that does not exist. */
export const membersAsk = (space: SpaceView): Ask =>
  ask('space.members.read', space, () => new NotFoundError('Space', space.id));

/** The creator of a Space as a user: the user who created it, or the owner of the key that did. */
export async function creatorOf(readStore: ReadStore, space: SpaceView): Promise<string | null> {
  if (space.createdByUserId) return space.createdByUserId;
  if (!space.createdByApiKeyId) return null;
  return (await readStore.reader<ApiKeyView>(API_KEYS).get(space.createdByApiKeyId))?.ownerUserId ?? null;
}

/** The Space, its creator and `userId`'s current role in it (404 when there is no such Space). */
export async function loadMembership(
  readStore: ReadStore,
  spaceId: string,
  userId: string,
): Promise<LoadedMembership> {
  const space = await spaceById(readStore, spaceId);
  const creatorUserId = await creatorOf(readStore, space);
  const recorded = space.members ?? {};
  const members: Readonly<Record<string, SpaceRole>> =
    Object.keys(recorded).length > 0 ? recorded : creatorUserId ? { [creatorUserId]: 'owner' } : {};
  return { space, creatorUserId, currentRole: members[userId] ?? null };
}

/**
 * The asks of changing `userId`'s membership to `newRole` (null: removal, or leaving when it is the principal's own):
 * 404 for a Space whose members it does not see, 403 with the policy's reason otherwise refused.
 */
export async function membershipChangeAsks(
  readStore: ReadStore,
  spaceId: string,
  userId: string,
  newRole: SpaceRole | null,
): Promise<readonly Ask[]> {
  const { space, currentRole } = await loadMembership(readStore, spaceId, userId);
  return [
    membersAsk(space),
    ask('space.member.change', { space, userId, currentRole, newRole }, (reason) =>
      reason === 'own_role_change_denied'
        ? 'nobody changes their own role in a Space (leaving is POST /spaces/{spaceId}/leave)'
        : reason === 'role_above_own'
          ? 'nobody grants a role above their own, or changes a member whose role is above theirs'
          : `changing the members of Space '${spaceId}' needs the editor role in it`,
    ),
  ];
}

/** 400 `unknown_user` unless the user exists and is active (invited people are users once they accept). */
export async function requireActiveUser(readStore: ReadStore, userId: string): Promise<void> {
  const user = await readStore.reader<UserView>(USERS).get(userId);
  if (!user || user.status === 'deactivated')
    throw new ValidationError('unknown_user', `no active user '${userId}'`, 'userId');
}
