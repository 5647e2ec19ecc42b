// Which Spaces a caller may see and change: loaders over the policy's `space.read` and `space.change` (see
// #identity authorization/policy.ts); visibleSpaceIds is the same rule as a query, for lists. An admin sees
// every Space; another key the Spaces it created and those holding an Agent it is granted. A Space outside that is
// answered 404, so that no key learns that its id exists.
import { ForbiddenError, NotFoundError } from '#kernel';
import type { Caller } from '#identity';
import { authorize, canChangeSpace } from '#identity';
import { findAll, type ReadStore } from '#read-store';
import { SPACES, type SpaceView } from './spaces.read-model.js';

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
  const created = await findAll<SpaceView>(
    readStore,
    SPACES,
    caller.session ? { createdByUserId: caller.userId } : { createdByApiKeyId: caller.apiKey.id },
  );
  const ids = new Set(created.map((space) => space.id));
  for (const spaceId of await grants.grantedSpaceIds(caller)) ids.add(spaceId);
  return [...ids];
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

/** The Space, if the caller may change it (and so put Agents in it): 404 when it cannot see it, 403 when it only sees it. */
export async function changeableSpace(
  readStore: ReadStore,
  grants: SpaceGrants,
  spaceId: string,
  caller: Caller,
): Promise<SpaceView> {
  const space = await visibleSpace(readStore, grants, spaceId, caller);
  if (!canChangeSpace(caller, space))
    throw new ForbiddenError('space_change_denied', `this API key may not change Space '${spaceId}'`);
  return space;
}
