// Which Agents a caller may use: admins all of them; other keys those they are granted, never another user's
// personal Agent. Agent-scoped routes answer 403 outside the grants, and lists leave such Agents out.
import { ForbiddenError } from '../../kernel/src/index.js';
import type { Caller } from '../../http/src/caller.js';

export interface AgentOwnership {
  readonly id: string;
  readonly isPersonal: boolean;
  readonly ownerUserId: string | null;
}

export function canAccessAgent(caller: Caller, agent: AgentOwnership): boolean {
  if (caller.isAdmin) return true;
  if (agent.isPersonal && agent.ownerUserId !== caller.userId) return false;
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

export function assertAdmin(caller: Caller): void {
  if (!caller.isAdmin) throw new ForbiddenError('admin_required', 'this operation needs an admin API key');
}
