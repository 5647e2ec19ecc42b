// Apps: registering them, their views in a chat, standalone calls.
import { allowIf, deny, isAdmin, isUser, mayUseAgent } from './roles.js';
import type { RuleSet } from './resources.js';

export const APPS_RULES: RuleSet<'app.manage' | 'app.standalone' | 'app.view'> = {
  'app.manage': (principal) => allowIf(isAdmin(principal), 'admin_required'),
  // Any App (its token, or a person through its session token) may use the instance-wide default model without an
  // Agent; users do that through the gateway.
  'app.standalone': (principal) => allowIf(principal.kind === 'appToken', 'principal_not_supported'),
  // The App views a chat shows: a person's (a session or their key) who uses the Agent; an App or a visitor, none.
  'app.view': (principal, agent) =>
    !isUser(principal) && !isAdmin(principal)
      ? deny('principal_not_supported')
      : allowIf(mayUseAgent(principal, agent), 'agent_access_denied'),
};
