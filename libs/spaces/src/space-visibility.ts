// Which Spaces a principal may see and change: loaders over the policy's `space.read` and `space.change` (see
// #identity authorization/policy.ts); visibleSpaceIds is the same rule as a query, for lists. An admin sees
// every Space; another key the Spaces it created and those holding an Agent it is granted. A Space outside that is
// answered 404, so that no key learns that its id exists.
import { ForbiddenError, NotFoundError } from '#kernel';
import { asPrincipal, authorize, type Principal, type PrincipalOrCaller } from '#identity';
import { findAll, type ReadStore } from '#read-store';
import { SPACES, type SpaceView } from './spaces.read-model.js';

/**
 * The Spaces a principal reaches through the Agents it is granted. The Agents context answers it (it provides this
 * token), so that Spaces need not know Agents: Agents live in Spaces, not the other way round.
 */
export abstract class SpaceGrants {
  abstract grantedSpaceIds(principal: Principal): Promise<readonly string[]>;
}

/** The ids of the Spaces a non-admin principal sees; null for an admin or the platform (every Space). */
export async function visibleSpaceIds(
  readStore: ReadStore,
  grants: SpaceGrants,
  who: PrincipalOrCaller,
): Promise<string[] | null> {
  const principal = asPrincipal(who);
  if (principal.kind === 'platform' || ('isAdmin' in principal && principal.isAdmin)) return null;
  const created =
    principal.kind === 'session'
      ? await findAll<SpaceView>(readStore, SPACES, { createdByUserId: principal.userId })
      : principal.kind === 'apiKey'
        ? await findAll<SpaceView>(readStore, SPACES, { createdByApiKeyId: principal.keyId })
        : [];
  const ids = new Set(created.map((space) => space.id));
  for (const spaceId of await grants.grantedSpaceIds(principal)) ids.add(spaceId);
  return [...ids];
}

/** The Space, if the principal may see it; else 404 whether or not it exists. */
export async function visibleSpace(
  readStore: ReadStore,
  grants: SpaceGrants,
  spaceId: string,
  who: PrincipalOrCaller,
): Promise<SpaceView> {
  const principal = asPrincipal(who);
  const space = await readStore.reader<SpaceView>(SPACES).get(spaceId);
  if (!space) throw new NotFoundError('Space', spaceId);
  if (authorize(principal, 'space.read', { space, holdsReachableAgent: false }).allow) return space;
  const holdsReachableAgent = (await grants.grantedSpaceIds(principal)).includes(spaceId);
  if (!authorize(principal, 'space.read', { space, holdsReachableAgent }).allow)
    throw new NotFoundError('Space', spaceId);
  return space;
}

/** Whether the principal may see the Space (false also when there is no such Space). */
export async function maySeeSpace(
  readStore: ReadStore,
  grants: SpaceGrants,
  spaceId: string,
  who: PrincipalOrCaller,
): Promise<boolean> {
  try {
    await visibleSpace(readStore, grants, spaceId, who);
    return true;
  } catch (error) {
    if (error instanceof NotFoundError) return false;
    throw error;
  }
}

/** The Space, if the principal may change it (and so put Agents in it): 404 when it cannot see it, 403 when it only sees it. */
export async function changeableSpace(
  readStore: ReadStore,
  grants: SpaceGrants,
  spaceId: string,
  who: PrincipalOrCaller,
): Promise<SpaceView> {
  const space = await visibleSpace(readStore, grants, spaceId, who);
  if (!authorize(who, 'space.change', space).allow)
    throw new ForbiddenError('space_change_denied', `this API key may not change Space '${spaceId}'`);
  return space;
}
