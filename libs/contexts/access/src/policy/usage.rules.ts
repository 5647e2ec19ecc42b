// Usage and model calls: one's own usage, everyone's, calling models directly.
import { allowIf, isAdmin, isUser } from './roles.js';
import type { RuleSet } from './resources.js';

export const USAGE_RULES: RuleSet<'usage.read.all' | 'usage.read.own' | 'model.call'> = {
  'usage.read.all': (principal) => allowIf(isAdmin(principal), 'admin_required'),
  'usage.read.own': (principal) => allowIf(isUser(principal), 'principal_not_supported'),
  'model.call': (principal) =>
    allowIf(principal.kind === 'apiKey' || isAdmin(principal), 'principal_not_supported'),
};
