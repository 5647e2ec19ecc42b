// Which Agents and Spaces a caller may use and manage. Agents: a personal Agent is its user's alone (not even an
// admin's key reaches another user's) and follows the user, not the key's grant list (a key granted `agents: []`
// still reaches its own user's); other Agents: admins reach all, other keys those they are granted. Agent-scoped routes
// answer 403 outside the grants, and lists leave such Agents out. Spaces (until Space membership and roles arrive): an
// admin sees and changes every Space; another key sees a Space it created or one holding an Agent it is granted, and
// changes or deletes only Spaces it created. Managing an Agent (changing its settings or prompt, moving, publishing,
// deleting it, changing its shared memory, writing its Space's Knowledge) is a right apart from using it: the
// right to change its Space (admins always; a personal Agent only its own user). A grant is the right to use.
import { ForbiddenError } from '#kernel';
import type { Caller } from './http/caller.js';

export interface AgentOwnership {
  readonly id: string;
  readonly isPersonal: boolean;
  readonly ownerUserId: string | null;
}

export function canAccessAgent(caller: Caller, agent: AgentOwnership): boolean {
  if (agent.isPersonal) return agent.ownerUserId === caller.userId;
  if (caller.isAdmin) return true;
  const access = caller.apiKey.agentAccess;
  return access.kind === 'all' || access.agentIds.includes(agent.id);
}

export function assertAgentAccess(caller: Caller, agent: AgentOwnership): void {
  if (!canAccessAgent(caller, agent))
    throw new ForbiddenError(
      'agent_access_denied',
      `this API key is not granted access to Agent '${agent.id}'`,
    );
}

export interface SpaceOwnership {
  readonly id: string;
  /** The API key that created the Space; null when it was created by the platform or before this was recorded. */
  readonly createdByApiKeyId?: string | null;
}

export function canChangeSpace(caller: Caller, space: SpaceOwnership): boolean {
  return caller.isAdmin || (!!space.createdByApiKeyId && space.createdByApiKeyId === caller.apiKey.id);
}

export interface ManagedAgent extends AgentOwnership {
  readonly spaceId: string | null;
}

/**
 * Whether the caller may manage the Agent (change, move, publish or delete it, change its shared memory, write its
 * Space's Knowledge): it must reach the Agent, and may change the Agent's Space (`space`, read by the caller of this
 * function; null when the Agent has none or it is gone). A personal Agent is managed by its own user only; a
 * non-personal Agent without a Space by admins only. Moving an Agent also needs the right to change the target Space.
 */
export function canManageAgent(caller: Caller, agent: ManagedAgent, space: SpaceOwnership | null): boolean {
  if (!canAccessAgent(caller, agent)) return false;
  if (agent.isPersonal || caller.isAdmin) return true;
  return space !== null && space.id === agent.spaceId && canChangeSpace(caller, space);
}

export function assertAdmin(caller: Caller): void {
  if (!caller.isAdmin) throw new ForbiddenError('admin_required', 'this operation needs an admin API key');
}
