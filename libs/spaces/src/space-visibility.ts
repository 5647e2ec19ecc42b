// Which Spaces a caller may see and change: loaders over the policy's `space.read`, `space.change` and
// `space.content.change` (see #identity authorization/policy.ts); visibleSpaceIds is the same rule as a query, for
// lists. An admin sees every Space; another user the Spaces they have a role in (a Space from before members: the
// ones they created) and, through a key, those holding an Agent it is granted. A Space outside that is answered 404,
// so that no key learns that its id exists.
import { ForbiddenError, NotFoundError } from '#kernel';
import type { Caller } from '#identity';
import { authorize } from '#identity';
import { findAll, type ReadStore } from '#read-store';
import { SPACE_MEMBERS, SPACES, type SpaceMemberView, type SpaceView } from './spaces.read-model.js';

/**
 * The Spaces a caller reaches through the Agents it is granted. The Agents context answers it (it provides this
 * token), so that Spaces need not know Agents: Agents live in Spaces, not the other way round.
 */
export abstract class SpaceGrants {
  abstract grantedSpaceIds(caller: Caller): Promise<readonly string[]>;
}

/** The ids of the Spaces a non-admin caller sees; null for an admin (every Space). */
export async function visibleSpaceIds(
  readStore: ReadStore,
  grants: SpaceGrants,
  caller: Caller,
): Promise<string[] | null> {
  if (caller.isAdmin) return null;
  const ids = new Set(await roleSpaceIds(readStore, caller));
  for (const spaceId of await grants.grantedSpaceIds(caller)) ids.add(spaceId);
  return [...ids];
}

/** The ids of the Spaces the caller's user has a role in (a Space from before members: created by them). */
export async function roleSpaceIds(readStore: ReadStore, caller: Caller): Promise<string[]> {
  const candidates = [
    ...(await findAll<SpaceView>(readStore, SPACES, { createdByUserId: caller.userId })),
    ...(caller.session
      ? []
      : await findAll<SpaceView>(readStore, SPACES, { createdByApiKeyId: caller.apiKey.id })),
  ];
  const memberships = await findAll<SpaceMemberView>(readStore, SPACE_MEMBERS, { userId: caller.userId });
  const spaces = readStore.reader<SpaceView>(SPACES);
  for (const { spaceId } of memberships) {
    const space = await spaces.get(spaceId);
    if (space) candidates.push(space);
  }
  const ids = candidates
    .filter((space) => authorize(caller, 'space.read', { space, holdsReachableAgent: false }).allow)
    .map((space) => space.id);
  return [...new Set(ids)];
}

/** The Space, if the caller may see it; else 404 whether or not it exists. */
export async function visibleSpace(
  readStore: ReadStore,
  grants: SpaceGrants,
  spaceId: string,
  caller: Caller,
): Promise<SpaceView> {
  const space = await readStore.reader<SpaceView>(SPACES).get(spaceId);
  if (!space) throw new NotFoundError('Space', spaceId);
  if (authorize(caller, 'space.read', { space, holdsReachableAgent: false }).allow) return space;
  const holdsReachableAgent = (await grants.grantedSpaceIds(caller)).includes(spaceId);
  if (!authorize(caller, 'space.read', { space, holdsReachableAgent }).allow)
    throw new NotFoundError('Space', spaceId);
  return space;
}

/** Whether the caller may see the Space (false also when there is no such Space). */
export async function maySeeSpace(
  readStore: ReadStore,
  grants: SpaceGrants,
  spaceId: string,
  caller: Caller,
): Promise<boolean> {
  try {
    await visibleSpace(readStore, grants, spaceId, caller);
    return true;
  } catch (error) {
    if (error instanceof NotFoundError) return false;
    throw error;
  }
}

/**
 * The Space, if the caller may change it (`space.change`: rename, delete; owners) or what is in it
 * (`space.content.change`: put Agents, Skills, prompts into it; editors): 404 when it cannot see it, 403 when it
 * only sees it.
 */
export async function changeableSpace(
  readStore: ReadStore,
  grants: SpaceGrants,
  spaceId: string,
  caller: Caller,
  action: 'space.change' | 'space.content.change' = 'space.change',
): Promise<SpaceView> {
  const space = await visibleSpace(readStore, grants, spaceId, caller);
  const decision = authorize(caller, action, space);
  if (!decision.allow)
    throw new ForbiddenError(
      decision.reason,
      action === 'space.change'
        ? `only an owner of Space '${spaceId}' renames or deletes it`
        : `changing what is in Space '${spaceId}' needs the editor role in it`,
    );
  return space;
}
