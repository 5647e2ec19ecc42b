// The audit trail and the provenance of answers.
import { allowIf, isAdmin, isUser, mayChangeSpace, mayUseAgent } from './roles.js';
import type { RuleSet } from './resources.js';

export const AUDIT_RULES: RuleSet<'audit.read' | 'provenance.read' | 'audit.replay'> = {
  'audit.read': (principal, space) =>
    space === null
      ? allowIf(isAdmin(principal), 'admin_required')
      : allowIf(mayChangeSpace(principal, space), 'space_change_denied'),
  // A replay re-sends recorded turns (anyone's questions, opened) to another model: admins only.
  'audit.replay': (principal) => allowIf(isAdmin(principal), 'admin_required'),
  'provenance.read': (principal, answer) =>
    isAdmin(principal) || answer === null
      ? allowIf(isAdmin(principal), 'admin_required')
      : allowIf(
          isUser(principal) &&
            principal.userId === answer.userId &&
            answer.agent !== null &&
            mayUseAgent(principal, answer.agent),
          'agent_access_denied',
        ),
};
