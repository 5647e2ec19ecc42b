// Memory: one's own memories with an Agent, and an Agent's shared memory (managing it).
import { allowIf, deny, inItsSpace, isUser, mayManageAgent, mayUseAgent } from './roles.js';
import type { RuleSet } from './resources.js';

export const MEMORY_RULES: RuleSet<
  'memory.read' | 'memory.personal.write' | 'memory.shared.write' | 'memory.own.erase'
> = {
  'memory.read': (principal, agent) =>
    allowIf(isUser(principal) && mayUseAgent(principal, agent), 'agent_access_denied'),
  'memory.personal.write': (principal, agent) =>
    allowIf(isUser(principal) && mayUseAgent(principal, agent), 'agent_access_denied'),
  'memory.shared.write': (principal, resource) =>
    !mayUseAgent(principal, inItsSpace(resource))
      ? deny('agent_access_denied')
      : allowIf(mayManageAgent(principal, resource), 'shared_memory_change_denied'),
  'memory.own.erase': (principal) => allowIf(isUser(principal), 'principal_not_supported'),
};
