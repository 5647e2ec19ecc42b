// Usage and model calls: one's own usage, everyone's, calling models directly.
import { allowIf, isAdmin, isUser } from './roles.js';
import type { RuleSet } from './resources.js';

export const USAGE_RULES: RuleSet<'usage.read.all' | 'usage.read.own' | 'model.call' | 'mcp.connect'> = {
  'usage.read.all': (principal) => allowIf(isAdmin(principal), 'admin_required'),
  'usage.read.own': (principal) => allowIf(isUser(principal), 'principal_not_supported'),
  'model.call': (principal) =>
    allowIf(principal.kind === 'apiKey' || isAdmin(principal), 'principal_not_supported'),
  // A user's key: an MCP client acts as its person (each tool then asks for its Agent), never as a browser session.
  'mcp.connect': (principal) => allowIf(principal.kind === 'apiKey', 'principal_not_supported'),
};
