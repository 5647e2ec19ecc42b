// Knowledge: reading an Agent's, writing and tagging it (managing), the instance's index.
import {
  allowIf,
  deny,
  inItsSpace,
  isAdmin,
  mayManageAgent,
  mayUseAgent,
  mayWriteAgentKnowledge,
} from './roles.js';
import type { RuleSet } from './resources.js';

export const KNOWLEDGE_RULES: RuleSet<
  'knowledge.read' | 'knowledge.write' | 'knowledge.tag' | 'knowledge.index' | 'knowledgeIndex.manage'
> = {
  'knowledge.read': (principal, agent) => allowIf(mayUseAgent(principal, agent), 'agent_access_denied'),
  'knowledge.write': (principal, resource) => {
    if (!mayUseAgent(principal, inItsSpace(resource))) return deny('agent_access_denied');
    if (resource.scope === 'global') return allowIf(isAdmin(principal), 'admin_required');
    if (resource.scope === 'space')
      return allowIf(mayManageAgent(principal, resource), 'space_change_denied');
    return allowIf(mayWriteAgentKnowledge(principal, resource), 'space_change_denied');
  },
  'knowledge.tag': (principal, resource) =>
    !mayUseAgent(principal, inItsSpace(resource))
      ? deny('agent_access_denied')
      : allowIf(mayWriteAgentKnowledge(principal, resource), 'space_change_denied'),
  'knowledge.index': (principal, agent) => allowIf(mayUseAgent(principal, agent), 'agent_access_denied'),
  'knowledgeIndex.manage': (principal) => allowIf(isAdmin(principal), 'admin_required'),
};
