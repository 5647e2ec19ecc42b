// The loader of a membership change: the Space (404 unless the principal has a role in it, or is an admin), its
// creator (a Space from before members has its creator as owner), the member's current role, and the policy's
// answer (`space.member.change`: who may add, change, remove, leave; the rules are the policy's). The decider keeps
// the last owner.
import { NotFoundError, ValidationError } from '#kernel';
import { API_KEYS, USERS, type ApiKeyView, type UserView } from '#identity';
import { demand, permits, type Principal } from '#access';
import type { ReadStore } from '#read-store';
import type { SpaceRole } from './space.events.js';
import { SPACES, type SpaceView } from './spaces.read-model.js';

export interface LoadedMembership {
  readonly space: SpaceView;
  /** Who created the Space (its owner when none is recorded); null when unknown (the platform made it). */
  readonly creatorUserId: string | null;
  readonly currentRole: SpaceRole | null;
}

/** The Space, when the principal may see its members (a role in it, or an admin); else 404. */
export async function spaceWithMembers(
  readStore: ReadStore,
  spaceId: string,
  principal: Principal,
): Promise<SpaceView> {
  const space = await readStore.reader<SpaceView>(SPACES).get(spaceId);
  if (!space || !permits(principal, 'space.members.read', space)) throw new NotFoundError('Space', spaceId);
  return space;
}

/** The creator of a Space as a user: the user who created it, or the owner of the key that did. */
export async function creatorOf(readStore: ReadStore, space: SpaceView): Promise<string | null> {
  if (space.createdByUserId) return space.createdByUserId;
  if (!space.createdByApiKeyId) return null;
  return (await readStore.reader<ApiKeyView>(API_KEYS).get(space.createdByApiKeyId))?.ownerUserId ?? null;
}

/**
 * Loads and authorizes a change of `userId`'s membership to `newRole` (null: removal, or leaving when it is the
 * principal's own): 404 for a Space it does not see, 403 with the policy's reason otherwise refused.
 */
export async function loadMembershipChange(
  readStore: ReadStore,
  spaceId: string,
  userId: string,
  newRole: SpaceRole | null,
  principal: Principal,
): Promise<LoadedMembership> {
  const space = await spaceWithMembers(readStore, spaceId, principal);
  const creatorUserId = await creatorOf(readStore, space);
  const recorded = space.members ?? {};
  const members: Readonly<Record<string, SpaceRole>> =
    Object.keys(recorded).length > 0 ? recorded : creatorUserId ? { [creatorUserId]: 'owner' } : {};
  const currentRole = members[userId] ?? null;
  demand(principal, 'space.member.change', { space, userId, currentRole, newRole }, (reason) =>
    reason === 'own_role_change_denied'
      ? 'nobody changes their own role in a Space (leaving is POST /spaces/{spaceId}/leave)'
      : reason === 'role_above_own'
        ? 'nobody grants a role above their own, or changes a member whose role is above theirs'
        : `changing the members of Space '${spaceId}' needs the editor role in it`,
  );
  return { space, creatorUserId, currentRole };
}

/** 400 `unknown_user` unless the user exists and is active (invited people are users once they accept). */
export async function requireActiveUser(readStore: ReadStore, userId: string): Promise<void> {
  const user = await readStore.reader<UserView>(USERS).get(userId);
  if (!user || user.status === 'deactivated')
    throw new ValidationError('unknown_user', `no active user '${userId}'`, 'userId');
}
