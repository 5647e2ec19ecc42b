// The platform's own steps: what a process manager does on the log's behalf and no request may ask for.
import { allowIf } from './roles.js';
import type { RuleSet } from './resources.js';

export const PLATFORM_RULES: RuleSet<'platform.step'> = {
  'platform.step': (principal) => allowIf(principal.kind === 'platform', 'principal_not_supported'),
};
