// The access policy's helpers for request handlers: thin adapters over the one policy (authorization/policy.ts, where
// every rule lives) that turn a denial into the HTTP error the routes have always answered.
import { ForbiddenError } from '#kernel';
import type { Caller } from './caller.js';
import type { PrincipalOrCaller } from './principal.js';
import {
  authorize,
  isAllowed,
  type Action,
  type AgentOwnership,
  type Resources,
  type ManagedAgent,
  type SpaceOwnership,
} from './policy/policy.js';

export type { AgentOwnership, ManagedAgent, SpaceOwnership } from './policy/policy.js';

export function canAccessAgent(caller: Caller, agent: AgentOwnership): boolean {
  return isAllowed(caller, 'agent.use', agent);
}

export function assertAgentAccess(caller: Caller, agent: AgentOwnership): void {
  if (!canAccessAgent(caller, agent))
    throw new ForbiddenError(
      'agent_access_denied',
      `this API key is not granted access to Agent '${agent.id}'`,
    );
}

export function canChangeSpace(caller: Caller, space: SpaceOwnership): boolean {
  return isAllowed(caller, 'space.change', space);
}

/**
 * Whether the caller may manage the Agent (change, move, publish or delete it, change its shared memory, write its
 * Space's Knowledge): the policy's `agent.manage`. `space` is the Agent's Space as read by the caller of this
 * function (null when the Agent has none or it is gone). Moving an Agent also needs `space.change` on the target.
 */
export function canManageAgent(caller: Caller, agent: ManagedAgent, space: SpaceOwnership | null): boolean {
  return isAllowed(caller, 'agent.manage', { agent, space });
}

/** 403 with the policy's reason as its code, unless the policy allows the action on the resource. */
export function assertAllowed<A extends Action>(
  who: PrincipalOrCaller,
  action: A,
  resource: Resources[A],
  message: string,
): void {
  const decision = authorize(who, action, resource);
  if (!decision.allow) throw new ForbiddenError(decision.reason, message);
}

/** The actions only admins (and the platform) may do. */
export type AdminAction =
  | 'apiKey.manage'
  | 'user.list'
  | 'user.manage'
  | 'usage.read.all'
  | 'knowledgeIndex.manage'
  | 'skill.marketplace.curate';

/** 403 `admin_required` unless the policy allows the (admin-only) action; `apiKey.manage` when none is named. */
export function assertAdmin(who: PrincipalOrCaller, action: AdminAction = 'apiKey.manage'): void {
  if (!authorize(who, action, null).allow)
    throw new ForbiddenError('admin_required', 'this operation needs an admin API key');
}
