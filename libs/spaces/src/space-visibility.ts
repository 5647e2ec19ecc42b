// Which Spaces a caller may see and change (the rule is the access policy's, see access-policy.ts). An admin sees
// every Space; another key the Spaces it created and those holding an Agent it is granted. A Space outside that is
// answered 404, so that no key learns that its id exists.
import { ForbiddenError, NotFoundError } from '../../kernel/src/index.js';
import type { Caller } from '../../http/src/caller.js';
import { canChangeSpace } from '../../identity/src/access-policy.js';
import type { Filter, ReadStore, StoredDocument } from '../../read-store/src/read-store.port.js';
import { SPACES, type SpaceView } from '../../../projections/spaces/spaces.projector.js';
import { AGENTS, type AgentView } from '../../../projections/agents/agents.projector.js';

/** Every document of a filter, page by page. */
async function everything<T extends StoredDocument>(
  readStore: ReadStore,
  collection: string,
  filter: Filter,
): Promise<T[]> {
  const reader = readStore.reader<T>(collection);
  const all: T[] = [];
  let cursor: string | null = null;
  do {
    const page = await reader.find(filter, { limit: 1000, cursor });
    all.push(...page.data);
    cursor = page.nextCursor;
  } while (cursor);
  return all;
}

/** The ids of the Spaces a non-admin caller sees; null for an admin (every Space). */
export async function visibleSpaceIds(readStore: ReadStore, caller: Caller): Promise<string[] | null> {
  if (caller.isAdmin) return null;
  const created = await everything<SpaceView>(readStore, SPACES, { createdByApiKeyId: caller.apiKey.id });
  const access = caller.apiKey.agentAccess;
  const granted = await everything<AgentView>(
    readStore,
    AGENTS,
    access.kind === 'all' ? { isPersonal: false } : { id: { $in: access.agentIds } },
  );
  const ids = new Set(created.map((space) => space.id));
  for (const agent of granted) if (agent.spaceId) ids.add(agent.spaceId);
  return [...ids];
}

/** The Space, if the caller may see it; else 404 whether or not it exists. */
export async function visibleSpace(
  readStore: ReadStore,
  spaceId: string,
  caller: Caller,
): Promise<SpaceView> {
  const space = await readStore.reader<SpaceView>(SPACES).get(spaceId);
  if (space && caller.isAdmin) return space;
  const visible = space ? await visibleSpaceIds(readStore, caller) : [];
  if (!space || !visible?.includes(spaceId)) throw new NotFoundError('Space', spaceId);
  return space;
}

/** The Space, if the caller may change it (and so put Agents in it): 404 when it cannot see it, 403 when it only sees it. */
export async function changeableSpace(
  readStore: ReadStore,
  spaceId: string,
  caller: Caller,
): Promise<SpaceView> {
  const space = await visibleSpace(readStore, spaceId, caller);
  if (!canChangeSpace(caller, space))
    throw new ForbiddenError('space_change_denied', `this API key may not change Space '${spaceId}'`);
  return space;
}
