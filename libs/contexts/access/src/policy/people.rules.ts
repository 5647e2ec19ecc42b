// People and their credentials: users, API keys, linked identities, instance settings.
import { allowIf, isAdmin, isUser } from './roles.js';
import { ownerIdOf } from '../principal.js';
import { agentUseScope } from './agents.rules.js';
import type { RuleSet } from './resources.js';

export const PEOPLE_RULES: RuleSet<
  | 'user.own'
  | 'apiKey.manage'
  | 'user.list'
  | 'user.manage'
  | 'user.self'
  | 'apiKey.own'
  | 'apiKey.grant.all'
  | 'identity.link'
  | 'instance.settings.manage'
> = {
  'apiKey.manage': (principal) => allowIf(isAdmin(principal), 'admin_required'),
  'user.list': (principal) => allowIf(isAdmin(principal), 'admin_required'),
  'user.manage': (principal) => allowIf(isAdmin(principal), 'admin_required'),
  'user.self': (principal) => allowIf(isUser(principal), 'principal_not_supported'),
  'user.own': (principal, { ownerUserId }) =>
    allowIf(ownerUserId !== null && ownerIdOf(principal) === ownerUserId, 'not_own'),
  'apiKey.own': (principal) => allowIf(isUser(principal), 'principal_not_supported'),
  // A key granted every Agent: only for a user who reaches every Agent themselves (no list narrows them).
  'apiKey.grant.all': (principal) =>
    allowIf(isUser(principal) && agentUseScope(principal).grantedIds === null, 'agent_access_denied'),
  'identity.link': (principal) => allowIf(principal.kind === 'session', 'principal_not_supported'),
  'instance.settings.manage': (principal) => allowIf(isAdmin(principal), 'admin_required'),
};
