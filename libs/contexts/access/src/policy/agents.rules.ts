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
} from './roles.js';
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
