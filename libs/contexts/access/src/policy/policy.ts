// The one place that decides who may: `authorize(principal, action, resource)` answers allow, or deny with a reason
// code. Every rule of "who may" lives here. It is asked in two places only: the guard, from a route's row (actions on
// the principal alone), and the gate, from a command's or query's declaration (../enforcement: the context's resolver
// loads the resource the action reads, a Space with its members as the read model holds them; the gate asks and
// turns a denial into the route's error: 404 where existence must not be confirmed, else 403 with the reason as the
// code). Deny by default: an action or a principal kind without a rule here is denied (`no_rule`).
// The rules live in one file per kind of resource (*.rules.ts beside this one, with the resource types in
// resources.ts and the building blocks they share in roles.ts); this file puts them together and answers.
//
// The rules:
// - Space roles. A user's role in a Space is their membership's (owner, editor or member). A Space without recorded
//   members (created before members existed) has its creator as owner (the key that created it, or the user who
//   did). An API key acts as its user (its owner): the role is its user's, and its grants narrow it, never widen
//   it. Admins (and the platform) may do everything everywhere.
// - Spaces. Seeing one needs a role in it (or, for keys, an Agent granted in it); renaming, deleting it and its
//   audit trail need owner; putting Agents, Skills and prompts into it needs editor; reading its members needs a
//   role. Members: adding, changing and removing others needs editor at least, and nobody grants a role above their
//   own or touches a member above them; nobody changes their own role; anyone may leave (the last owner stays:
//   the decider's rule).
// - A private personal Space (`personalOf`) is its user's alone: they are its owner, nobody else has a role, admins
//   do not see it; it is never shared; it holds the personal Agent only (the platform puts it there).
// - Agents. A personal Agent is its user's alone (not even an admin's key reaches another user's) and follows the
//   user, not the key's grant list. Other Agents: admins reach all; a session those of the Spaces its user has a
//   role in; an API key those its user reaches (an admin user: all, whether or not the key is an admin key) that its
//   grants allow (`all`, or the Agents it lists): a listed Agent of a Space its user has no role in stays out of
//   reach, and removing the user from the Space ends its keys' use at once. Using an Agent (reading it, talking to it,
//   reading its Knowledge, one's own memories and usage) needs only that; managing it (settings, prompt, moving,
//   publishing, deleting, its shared memory, writing or tagging its own and its Space's Knowledge, its Skills) needs
//   editor in its Space (admins always; a personal Agent its own user only; an Agent without a Space admins only):
//   what one user writes there, every other user reads. Every resolver reads the Agent's Space
//   with it (`space`): an Agent without its Space read is nobody's to use through a role (deny by default).
// - Creating shared Spaces: the instance setting lists the roles allowed (none set: everyone); admins always.
// - Instance-wide things (instance settings, API keys, users, every user's usage, the knowledge index, Global documents, DEFAULT
//   Skills): admins only.
// - A session (a person signed in) is its user: the Agents of the Spaces they have a role in, their personal Agent,
//   admin rights if an admin. An App token uses the Agents of its allowlist (standalone: none; a global App's
//   allowlist holds personal Agents too) and tags their Knowledge (the bridge), and manages nothing else; a
//   `svc_session_token` is exactly the intersection of what its App may reach and what its person may do signed in. An embed visitor uses the one public Agent it visits; the platform
//   (process managers) may do what an admin may, except what is a user's own (memories, usage, one's user).
import { asPrincipal, type PrincipalOrCaller } from '../principal.js';
import { AGENTS_RULES } from './agents.rules.js';
import { APPS_RULES } from './apps.rules.js';
import { AUDIT_RULES } from './audit.rules.js';
import { KNOWLEDGE_RULES } from './knowledge.rules.js';
import { MEMORY_RULES } from './memory.rules.js';
import { PEOPLE_RULES } from './people.rules.js';
import { PLATFORM_RULES } from './platform.rules.js';
import { deny } from './roles.js';
import { SKILLS_RULES } from './skills.rules.js';
import { SPACES_RULES } from './spaces.rules.js';
import { USAGE_RULES } from './usage.rules.js';
import type { Action, Decision, Resources, Rule, RuleSet } from './resources.js';

export * from './resources.js';
export { roleIn } from './roles.js';
export { agentUseScope } from './agents.rules.js';

/** Every action's rule: the compiler refuses a policy that leaves an action without one. */
const RULES: RuleSet<Action> = {
  ...AGENTS_RULES,
  ...SPACES_RULES,
  ...KNOWLEDGE_RULES,
  ...MEMORY_RULES,
  ...SKILLS_RULES,
  ...PEOPLE_RULES,
  ...USAGE_RULES,
  ...AUDIT_RULES,
  ...APPS_RULES,
  ...PLATFORM_RULES,
};

const KNOWN_PRINCIPALS: ReadonlySet<string> = new Set([
  'apiKey',
  'session',
  'appToken',
  'embedVisitor',
  'platform',
]);

/**
 * May this principal (or request caller) do this action on this resource? Deny by default: an unknown action or
 * principal kind is `no_rule`.
 */
export function authorize<A extends Action>(
  who: PrincipalOrCaller,
  action: A,
  resource: Resources[A],
): Decision {
  const principal = asPrincipal(who);
  if (!KNOWN_PRINCIPALS.has((principal as { kind?: unknown }).kind as string)) return deny('no_rule');
  const rule = Object.hasOwn(RULES, action) ? (RULES[action] as Rule<A>) : undefined;
  return rule ? rule(principal, resource) : deny('no_rule');
}

/** `authorize(…).allow`. */
export const isAllowed = <A extends Action>(
  who: PrincipalOrCaller,
  action: A,
  resource: Resources[A],
): boolean => authorize(who, action, resource).allow;
