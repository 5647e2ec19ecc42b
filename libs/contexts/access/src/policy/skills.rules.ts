// Skills: the DEFAULT ones, a Space's and an Agent's, and the marketplace.
import { ALLOW, allowIf, inItsSpace, isAdmin, mayChangeContent, mayUseAgent } from './roles.js';
import { SPACES_RULES } from './spaces.rules.js';
import { AGENTS_RULES } from './agents.rules.js';
import type { RuleSet } from './resources.js';

export const SKILLS_RULES: RuleSet<'skill.read' | 'skill.change' | 'skill.marketplace.curate'> = {
  'skill.read': (principal, place) =>
    place.kind === 'global'
      ? ALLOW
      : place.kind === 'agent'
        ? allowIf(mayUseAgent(principal, inItsSpace(place)), 'agent_access_denied')
        : SPACES_RULES['space.read'](principal, {
            space: place.space,
            holdsReachableAgent: place.holdsReachableAgent ?? false,
          }),
  'skill.change': (principal, place) =>
    place.kind === 'global'
      ? allowIf(isAdmin(principal), 'skill_change_denied')
      : place.kind === 'space'
        ? allowIf(mayChangeContent(principal, place.space), 'space_change_denied')
        : AGENTS_RULES['agent.manage'](principal, place),
  'skill.marketplace.curate': (principal) => allowIf(isAdmin(principal), 'admin_required'),
};
