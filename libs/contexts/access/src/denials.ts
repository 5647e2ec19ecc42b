// The access policy's helpers for the guard, the gate and what lists show: thin adapters over the one policy
// (policy/policy.ts, where every rule lives) that turn a denial into the HTTP error the routes have always answered.
import { ForbiddenError } from '#kernel';
import { asPrincipal, userIdOf, type PrincipalOrCaller } from './principal.js';
import { authorize, type Action, type Resources } from './policy/policy.js';

/** The actions that read nothing but the principal (their resource is null). */
export type PrincipalAction = { [A in Action]: Resources[A] extends null ? A : never }[Action];

const ADMIN_ONLY = { code: 'admin_required', message: 'this operation needs an admin API key' } as const;

/**
 * The 403 of each action that reads nothing but the principal. The guard asks the policy for these from the route's
 * row before any handler runs, so no handler asks again.
 */
const PRINCIPAL_DENIALS: { readonly [A in PrincipalAction]: { code?: string; message: string } } = {
  'apiKey.manage': ADMIN_ONLY,
  'user.list': ADMIN_ONLY,
  'user.manage': ADMIN_ONLY,
  'usage.read.all': ADMIN_ONLY,
  'knowledgeIndex.manage': ADMIN_ONLY,
  'audit.replay': ADMIN_ONLY,
  'app.manage': ADMIN_ONLY,
  'instance.settings.manage': { message: 'only admins read and change instance settings' },
  'skill.marketplace.curate': {
    code: 'marketplace_admin_only',
    message: 'only admins list, archive and restore marketplace Skills',
  },
  'user.self': { message: 'this principal is not a user' },
  'apiKey.own': { message: 'this principal has no keys of its own' },
  'apiKey.grant.all': { message: 'a key granted every Agent needs a caller that reaches every Agent' },
  'identity.link': { message: 'providers are linked from a signed-in session' },
  'usage.read.own': { message: 'this principal has no usage of its own' },
  'memory.own.erase': { message: 'memories belong to users: this principal has none' },
  'model.call': { message: 'this principal may not call models directly' },
  'mcp.connect': { message: "the MCP endpoint takes a user's API key" },
  'app.standalone': { message: 'only an App calls without an Agent (its standalone bridge)' },
  'platform.step': { message: 'only the platform takes this step' },
};

export const isPrincipalAction = (rule: string): rule is PrincipalAction =>
  Object.hasOwn(PRINCIPAL_DENIALS, rule);

/** 403 (the policy's reason, or the action's own code) unless the policy allows the principal the action. */
export function demandOfPrincipal(who: PrincipalOrCaller, action: PrincipalAction): void {
  const decision = authorize(who, action, null);
  if (decision.allow) return;
  const { code, message } = PRINCIPAL_DENIALS[action];
  throw new ForbiddenError(code ?? decision.reason, message);
}

/** The user a principal acts for (an API key's owner, a session's person); 403 `principal_not_supported` otherwise. */
export function userActingAs(who: PrincipalOrCaller, message = 'this principal is not a user'): string {
  const userId = userIdOf(asPrincipal(who));
  if (!userId) throw new ForbiddenError('principal_not_supported', message);
  return userId;
}

/** Whether the policy allows the principal the action on the resource: for lists and for what an answer shows. */
export const permits = <A extends Action>(
  who: PrincipalOrCaller,
  action: A,
  resource: Resources[A],
): boolean => authorize(who, action, resource).allow;

/**
 * A 403 that is no decision of the policy: a credential refused at sign-in, a rule of the domain a decider keeps
 * (nobody changes their own role). Built here as every 403 is, so that none is made up beside the policy.
 */
export const forbidden = (code: string, message: string): ForbiddenError => new ForbiddenError(code, message);
