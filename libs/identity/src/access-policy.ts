// Which Agents and Spaces a caller may use. Agents: a personal Agent is its user's alone (not even an admin's key
// reaches another user's); within that, admins reach all, other keys those they are granted. Agent-scoped routes answer 403
// outside the grants, and lists leave such Agents out. Spaces (until Space membership and roles arrive): an admin
// sees and changes every Space; another key sees a Space it created or one holding an Agent it is granted, and
// changes or deletes only Spaces it created.
import { ForbiddenError } from '#kernel';
import type { Caller } from './http/caller.js';

export interface AgentOwnership {
  readonly id: string;
  readonly isPersonal: boolean;
  readonly ownerUserId: string | null;
}

export function canAccessAgent(caller: Caller, agent: AgentOwnership): boolean {
  if (agent.isPersonal && agent.ownerUserId !== caller.userId) return false;
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

export function assertAdmin(caller: Caller): void {
  if (!caller.isAdmin) throw new ForbiddenError('admin_required', 'this operation needs an admin API key');
}
