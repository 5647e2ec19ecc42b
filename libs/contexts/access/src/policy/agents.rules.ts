// Agents: who creates, uses and manages one.
import {
  ALLOW,
  allowIf,
  deny,
  inItsSpace,
  isAdmin,
  mayChangeContent,
  mayManageAgent,
  mayUseAgent,
  keyUserIsAdmin,
} from './roles.js';
import type { Principal } from '../principal.js';
import type { RuleSet } from './resources.js';

export const AGENTS_RULES: RuleSet<'agent.create' | 'agent.use' | 'agent.manage'> = {
  'agent.create': (principal, space) =>
    !(
      isAdmin(principal) ||
      principal.kind === 'session' ||
      (principal.kind === 'apiKey' && principal.grants.kind === 'all')
    )
      ? deny('agent_creation_denied')
      : space === null
        ? ALLOW
        : allowIf(mayChangeContent(principal, space), 'space_change_denied'),
  'agent.use': (principal, agent) => allowIf(mayUseAgent(principal, agent), 'agent_access_denied'),
  'agent.manage': (principal, resource) =>
    !mayUseAgent(principal, inItsSpace(resource))
      ? deny('agent_access_denied')
      : allowIf(mayManageAgent(principal, resource), 'space_change_denied'),
};

/**
 * What `agent.use` lets a principal list, as a read model can filter it: the Agent ids its grants name (null: the
 * grants name no list; a user's personal Agent follows the user, not the list), and whether the Agents of any Space
 * (else those of the Spaces its user has a role in, and its personal Agent). A narrowing for full pages only: the
 * policy still decides every Agent listed.
 */
export function agentUseScope(principal: Principal): {
  readonly grantedIds: readonly string[] | null;
  readonly anySpace: boolean;
} {
  switch (principal.kind) {
    case 'apiKey':
      return {
        grantedIds: principal.grants.kind === 'agents' ? principal.grants.agentIds : null,
        anySpace: keyUserIsAdmin(principal),
      };
    case 'session':
      return { grantedIds: null, anySpace: principal.isAdmin };
    case 'appToken':
      return { grantedIds: principal.allowlist === 'standalone' ? [] : principal.allowlist, anySpace: true };
    case 'embedVisitor':
      return { grantedIds: [principal.agentId], anySpace: true };
    case 'platform':
      return { grantedIds: null, anySpace: true };
  }
}
