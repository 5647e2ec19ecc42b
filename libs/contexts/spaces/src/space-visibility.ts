// Which Spaces a principal may see and change: what the policy's `space.read`, `space.change` and
// `space.content.change` read (spaceToSee, spaceToChange: the Space and the asks the gate puts); visibleSpaceIds is
// the same rule as a query, for lists. An admin sees every Space; another user the Spaces they have a role in (a Space from before members: the
// ones they created) and, through a key, those holding an Agent it is granted. A Space outside that is answered 404,
// so that no key learns that its id exists.
import { NotFoundError } from '#kernel';
import {
  allowed,
  ask,
  permits,
  asPrincipal,
  userIdOf,
  type Ask,
  type Principal,
  type PrincipalOrCaller,
} from '#access';
import { findAll, type ReadStore } from '#read-store';
import { SPACE_MEMBERS, SPACES, type SpaceMemberView, type SpaceView } from './spaces.read-model.js';

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
  const ids = new Set(await roleSpaceIds(readStore, principal));
  for (const spaceId of await grants.grantedSpaceIds(principal)) ids.add(spaceId);
  return [...ids];
}

/** The ids of the Spaces the principal's user has a role in (a Space from before members: created by them). */
export async function roleSpaceIds(readStore: ReadStore, who: PrincipalOrCaller): Promise<string[]> {
  const principal = asPrincipal(who);
  const userId = userIdOf(principal);
  if (userId === null) return [];
  const candidates = [
    ...(await findAll<SpaceView>(readStore, SPACES, { createdByUserId: userId })),
    ...(principal.kind === 'apiKey'
      ? await findAll<SpaceView>(readStore, SPACES, { createdByApiKeyId: principal.keyId })
      : []),
  ];
  const memberships = await findAll<SpaceMemberView>(readStore, SPACE_MEMBERS, { userId });
  const spaces = readStore.reader<SpaceView>(SPACES);
  for (const { spaceId } of memberships) {
    const space = await spaces.get(spaceId);
    if (space) candidates.push(space);
  }
  const ids = candidates
    .filter((space) => permits(principal, 'space.read', { space, holdsReachableAgent: false }))
    .map((space) => space.id);
  return [...new Set(ids)];
}

/** A Space as the policy reads it, with the asks a message needs of it. */
export interface SpaceToAsk {
  readonly space: SpaceView;
  readonly asks: readonly Ask[];
}

/**
 * The Space (404 when there is none) and the ask of seeing it (`space.read`, through a role or an Agent the principal
 * reaches in it): denied, 404 as well, so that no key learns that its id exists.
 */
export async function spaceToSee(
  readStore: ReadStore,
  grants: SpaceGrants,
  spaceId: string,
  who: PrincipalOrCaller,
): Promise<SpaceToAsk> {
  const space = await readStore.reader<SpaceView>(SPACES).get(spaceId);
  if (!space) throw new NotFoundError('Space', spaceId);
  const holdsReachableAgent = (await grants.grantedSpaceIds(asPrincipal(who))).includes(spaceId);
  const notFound = () => new NotFoundError('Space', spaceId);
  return { space, asks: [ask('space.read', { space, holdsReachableAgent }, notFound)] };
}

/**
 * The Space and the asks of changing it (`space.change`: rename, delete; owners) or what is in it
 * (`space.content.change`: put Agents, Skills, prompts into it; editors): 404 when it cannot see it, 403 when it
 * only sees it.
 */
export async function spaceToChange(
  readStore: ReadStore,
  grants: SpaceGrants,
  spaceId: string,
  who: PrincipalOrCaller,
  action: 'space.change' | 'space.content.change' = 'space.change',
): Promise<SpaceToAsk> {
  const { space, asks } = await spaceToSee(readStore, grants, spaceId, who);
  const message =
    action === 'space.change'
      ? `only an owner of Space '${spaceId}' renames or deletes it`
      : `changing what is in Space '${spaceId}' needs the editor role in it`;
  return { space, asks: [...asks, ask(action, space, message)] };
}

/** Whether the principal may see the Space (false also when there is no such Space): what an answer tells it. */
export async function maySeeSpace(
  readStore: ReadStore,
  grants: SpaceGrants,
  spaceId: string,
  who: PrincipalOrCaller,
): Promise<boolean> {
  try {
    const { asks } = await spaceToSee(readStore, grants, spaceId, who);
    return allowed(asks, who);
  } catch (error) {
    if (error instanceof NotFoundError) return false;
    throw error;
  }
}
