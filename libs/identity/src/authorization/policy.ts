// The one place that decides who may: `authorize(principal, action, resource)` answers allow, or deny with a reason
// code. Every rule of "who may" lives here; the contexts' loaders (accessibleAgent, visibleSpace, KnowledgeAccess,
// MemoryAccess, SkillAccess, …) only fetch the resource the action needs (a Space with its members as the read model
// holds them), ask this policy, and turn a denial into their HTTP error (404 where existence must not be confirmed,
// else 403 with the reason as the code). Deny by default: an action or a principal kind without a rule here is denied
// (`no_rule`).
// Over 300 lines on purpose: every rule, with the resource type each action reads, is in this one file, so that
// "who may" is answered in one place.
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
//   what one user writes there, every other user reads. Every loader reads the Agent's Space
//   with it (`space`): an Agent without its Space read is nobody's to use through a role (deny by default).
// - Creating shared Spaces: the instance setting lists the roles allowed (none set: everyone); admins always.
// - Instance-wide things (instance settings, API keys, users, every user's usage, the knowledge index, Global documents, DEFAULT
//   Skills): admins only.
// - A session (a person signed in) is its user: the Agents of the Spaces they have a role in, their personal Agent,
//   admin rights if an admin. An App token uses the Agents of its allowlist (standalone: none; a global App's
//   allowlist holds personal Agents too) and tags their Knowledge (the bridge), and manages nothing else; a
//   `svc_session_token` is exactly the intersection of what its App may reach and what its person may do signed in. An embed visitor uses the one public Agent it visits; the platform
//   (process managers) may do what an admin may, except what is a user's own (memories, usage, one's user).
import type { AgentAccess } from '../api-key.events.js';
import {
  asPrincipal,
  type ApiKeyPrincipal,
  type AppTokenPrincipal,
  type Principal,
  type PrincipalOrCaller,
  type SessionPrincipal,
} from './principal.js';

/** A member's role in a Space, weakest first. */
export const SPACE_ROLES = ['member', 'editor', 'owner'] as const;
export type SpaceRole = (typeof SPACE_ROLES)[number];

const rank = (role: SpaceRole | null): number => (role === null ? -1 : SPACE_ROLES.indexOf(role));
const atLeast = (role: SpaceRole | null, floor: SpaceRole): boolean => rank(role) >= rank(floor);

export interface AgentOwnership {
  readonly id: string;
  readonly isPersonal: boolean;
  readonly ownerUserId: string | null;
  /** Whether anyone may talk to it through its embed (only read for embed visitors). */
  readonly isPublic?: boolean;
  /**
   * The Agent's Space with its members, as the loader read it (null: none, or gone). Every loader reads it: an Agent
   * without it (undefined, e.g. from untyped code) is used by nobody but the principals whose rule does not read the
   * Space (the platform, an App token's allowlist, an embed visitor, the user of a personal Agent): deny by default.
   */
  readonly space: SpaceOwnership | null;
}

/** An Agent to manage: its Space is the one `AgentInSpace` carries beside it (the policy reads it from there). */
export interface ManagedAgent extends Omit<AgentOwnership, 'space'> {
  readonly spaceId: string | null;
}

export interface SpaceOwnership {
  readonly id: string;
  /** The API key that created the Space; null when it was created by the platform or before this was recorded. */
  readonly createdByApiKeyId?: string | null;
  /** The user who created the Space signed in (through a session); null otherwise. */
  readonly createdByUserId?: string | null;
  /** Its members' roles by user id, as the read model holds them; empty or absent before members existed. */
  readonly members?: Readonly<Record<string, SpaceRole>>;
  /** A user's private personal Space: that user's id (theirs alone, admins included; never shared). */
  readonly personalOf?: string | null;
}

/** A change of one membership: adding (`currentRole` null), changing a role, removing (`newRole` null). */
export interface MembershipChange {
  readonly space: SpaceOwnership;
  readonly userId: string;
  readonly currentRole: SpaceRole | null;
  readonly newRole: SpaceRole | null;
}

/** An Agent to manage, with its Space as read by the loader (null when it has none or the Space is gone). */
export interface AgentInSpace {
  readonly agent: ManagedAgent;
  readonly space: SpaceOwnership | null;
}

/** Where a Knowledge document lives: its Agent's own, its Space's (shared by its Agents) or Global (every Agent's). */
export type KnowledgeScope = 'agent' | 'space' | 'global';

/** Where a Skill lives: DEFAULT (global), a Space's, or an Agent's. */
export type SkillPlace =
  | { readonly kind: 'global' }
  | {
      readonly kind: 'space';
      readonly space: SpaceOwnership;
      /** Whether the Space holds an Agent the principal may use (it then sees the Space, and its Skills). */
      readonly holdsReachableAgent?: boolean;
    }
  | { readonly kind: 'agent'; readonly agent: ManagedAgent; readonly space: SpaceOwnership | null };

/** What each action needs to know of its resource. */
export interface Resources {
  /**
   * Create an Agent: in the Space given (which needs editor in it, as `space.content.change`), or null when only
   * the principal is asked (the Space is then checked as `space.content.change` by the loader).
   */
  'agent.create': SpaceOwnership | null;
  /** Read an Agent, talk to it, its Knowledge, one's own memories, conversations and usage of it. */
  'agent.use': AgentOwnership;
  /** Change its settings or prompt, move, publish or delete it; see every user's usage of it. */
  'agent.manage': AgentInSpace;
  /**
   * Create a shared Space: `creatorRoles` is the instance setting of the roles allowed to (null: no setting,
   * everyone). Admins always may.
   */
  'space.create': { readonly creatorRoles: readonly ('admin' | 'member')[] } | null;
  /** Read and change the instance's settings (who may create Spaces). */
  'instance.settings.manage': null;
  /** See a Space: `holdsReachableAgent` is whether it holds an Agent the principal may use. */
  'space.read': { readonly space: SpaceOwnership; readonly holdsReachableAgent: boolean };
  /** Rename or delete a Space; read its audit trail; set its spend limit. */
  'space.change': SpaceOwnership;
  /** Put an Agent into a Space, create and change its Skills and prompts. */
  'space.content.change': SpaceOwnership;
  /** List a Space's members. */
  'space.members.read': SpaceOwnership;
  /** Add a member, change a member's role, remove a member or leave. */
  'space.member.change': MembershipChange;
  /** Find people of the instance by name or e-mail to add to this Space (the member picker): who may add members. */
  'space.member.candidates': SpaceOwnership;
  /** List and read the Space's prompts (and their versions). */
  'prompt.read': SpaceOwnership;
  /** Create, revise and delete the Space's prompts. */
  'prompt.change': SpaceOwnership;
  /** Read an Agent's Knowledge (its own, its Space's and Global documents). */
  'knowledge.read': AgentOwnership;
  /**
   * Add, change, tag, delete or re-process a document of this scope through this Agent: managing it (its own and its
   * Space's documents), admins (Global ones).
   */
  'knowledge.write': AgentInSpace & { readonly scope: KnowledgeScope };
  /** Create, rename, delete the Agent's own tags (tags are per Agent, also on shared documents): managing it. */
  'knowledge.tag': AgentInSpace;
  /** Build, rebuild or cancel the Agent's summary index (derived from what it reads). */
  'knowledge.index': AgentOwnership;
  /** Read one's own memories and the Agent's shared ones. */
  'memory.read': AgentOwnership;
  /** Change one's own memories of the Agent. */
  'memory.personal.write': AgentOwnership;
  /** Change the Agent's shared memories (and see who contributed them). */
  'memory.shared.write': AgentInSpace;
  /** See a Skill of this place (DEFAULT Skills: everyone). */
  'skill.read': SkillPlace;
  /** Create, change, publish or delete a Skill of this place. */
  'skill.change': SkillPlace;
  /** List, archive and restore marketplace Skills; see archived ones. */
  'skill.marketplace.curate': null;
  /** Issue, list, change and revoke API keys. */
  'apiKey.manage': null;
  /** List every user. */
  'user.list': null;
  /** Invite people, change another user's role, deactivate and reactivate users, read the mail outbox. */
  'user.manage': null;
  /** Read one's own user. */
  'user.self': null;
  /** Developer Settings: create, list, revoke and rotate one's own API keys (grants checked Agent by Agent). */
  'apiKey.own': null;
  /** Link an OpenID provider's identity to one's user, or unlink it: from a signed-in session only. */
  'identity.link': null;
  /** Usage of every key, Agent, model and user; cost controls. */
  'usage.read.all': null;
  /** Read one's own usage. */
  'usage.read.own': null;
  /** The instance-wide knowledge index: read its state, reindex. */
  'knowledgeIndex.manage': null;
  /** Call a model directly through the OpenAI-compatible gateway (no Agent). */
  'model.call': null;
  /** Erase everything one user stored in one's own name (one's memories of every Agent). */
  'memory.own.erase': null;
  /** Read the audit trail: of a Space and what is inside it (its changer), or the whole trail (null: admins). */
  'audit.read': SpaceOwnership | null;
  /**
   * See that an answer used a source (its conversation, message, time, user): admins every answer; a user their own
   * answers of an Agent they use. `agent` null: the Agent is gone; null: every answer (admins).
   */
  'provenance.read': { readonly agent: AgentOwnership | null; readonly userId: string } | null;
  /** Register, change, refresh, rotate the token of and delete Apps; list them. */
  'app.manage': null;
  /** Call the bridge without an Agent (a standalone App's generation, transcription, speech). */
  'app.standalone': null;
  /** See the Apps enabled for an Agent and open their views in the chat: a person who uses the Agent. */
  'app.view': AgentOwnership;
}

export type Action = keyof Resources;

export const ACTIONS = [
  'agent.create',
  'agent.use',
  'agent.manage',
  'space.create',
  'instance.settings.manage',
  'space.read',
  'space.change',
  'space.content.change',
  'space.members.read',
  'space.member.change',
  'space.member.candidates',
  'prompt.read',
  'prompt.change',
  'knowledge.read',
  'knowledge.write',
  'knowledge.tag',
  'knowledge.index',
  'memory.read',
  'memory.personal.write',
  'memory.shared.write',
  'skill.read',
  'skill.change',
  'skill.marketplace.curate',
  'apiKey.manage',
  'user.list',
  'user.manage',
  'user.self',
  'apiKey.own',
  'identity.link',
  'usage.read.all',
  'usage.read.own',
  'knowledgeIndex.manage',
  'model.call',
  'memory.own.erase',
  'audit.read',
  'provenance.read',
  'app.manage',
  'app.standalone',
  'app.view',
] as const satisfies readonly Action[];

/** Why a principal is refused: the loaders use it as the error code of a 403 (or answer 404 to hide existence). */
export type DenyReason =
  | 'agent_access_denied'
  | 'agent_creation_denied'
  | 'space_not_visible'
  | 'space_change_denied'
  | 'space_creation_restricted'
  | 'space_member_change_denied'
  | 'personal_space_unshareable'
  | 'role_above_own'
  | 'own_role_change_denied'
  | 'admin_required'
  | 'shared_memory_change_denied'
  | 'skill_change_denied'
  | 'principal_not_supported'
  | 'no_rule';

export type Decision = { readonly allow: true } | { readonly allow: false; readonly reason: DenyReason };

const ALLOW: Decision = { allow: true };
const deny = (reason: DenyReason): Decision => ({ allow: false, reason });
const allowIf = (condition: boolean, reason: DenyReason): Decision => (condition ? ALLOW : deny(reason));

const granted = (grants: AgentAccess, agentId: string) =>
  grants.kind === 'all' || grants.agentIds.includes(agentId);

/** A user's role in a Space (keys and sessions; null for other principals and for non-members). */
export function roleIn(principal: Principal, space: SpaceOwnership): SpaceRole | null {
  if (principal.kind !== 'apiKey' && principal.kind !== 'session') return null;
  if (space.personalOf) return space.personalOf === principal.userId ? 'owner' : null;
  const members = space.members ?? {};
  if (Object.keys(members).length > 0) return members[principal.userId] ?? null;
  return created(principal, space) ? 'owner' : null;
}

/**
 * Whether the principal's user has a role in the Agent's Space. Deny by default: an Agent without a Space (null), or
 * one whose loader did not read its Space (undefined), is no member's.
 */
function memberOfAgentSpace(principal: Principal, agent: AgentOwnership): boolean {
  const space = (agent as { space?: SpaceOwnership | null }).space;
  return space !== undefined && space !== null && roleIn(principal, space) !== null;
}

/** Whether an API key's user is an instance admin (an admin key's always is; the guard reads the user's role). */
const keyUserIsAdmin = (principal: ApiKeyPrincipal): boolean =>
  principal.isAdmin || principal.userIsAdmin === true;

function mayUseAgent(principal: Principal, agent: AgentOwnership): boolean {
  switch (principal.kind) {
    case 'apiKey':
      if (agent.isPersonal) return agent.ownerUserId === principal.userId;
      // The key acts as its user (an admin uses every Agent; another user those of the Spaces they have a role in),
      // and its grants narrow that: a listed Agent its user may not use stays out of reach.
      return (
        granted(principal.grants, agent.id) &&
        (keyUserIsAdmin(principal) || memberOfAgentSpace(principal, agent))
      );
    case 'session':
      if (agent.isPersonal) return agent.ownerUserId === principal.userId;
      return principal.isAdmin || memberOfAgentSpace(principal, agent);
    case 'appToken':
      // The allowlist decides for the App (a global App's holds every Agent, personal ones included: spec, Apps rule
      // 3); a session token is exactly what the App may reach and its person may use, as that person signed in.
      if (principal.allowlist === 'standalone' || !principal.allowlist.includes(agent.id)) return false;
      return !principal.user || mayUseAgent(personOf(principal.user), agent);
    case 'embedVisitor':
      return !agent.isPersonal && agent.isPublic === true && principal.agentId === agent.id;
    case 'platform':
      return true;
    default:
      return false;
  }
}

/** The person of a `svc_session_token`, as their own session: what they may do through an App is never more. */
const personOf = (user: NonNullable<AppTokenPrincipal['user']>): SessionPrincipal => ({
  kind: 'session',
  userId: user.userId,
  isAdmin: user.isAdmin,
});

const isAdmin = (principal: Principal): boolean =>
  principal.kind === 'platform' ||
  ((principal.kind === 'apiKey' || principal.kind === 'session') && principal.isAdmin);

/** Admins reach every Space but a user's private personal one (the platform reaches that too). */
const adminOver = (principal: Principal, space: SpaceOwnership): boolean =>
  principal.kind === 'platform' || (isAdmin(principal) && !space.personalOf);

/** Owners (and admins) rename and delete a Space. */
const mayChangeSpace = (principal: Principal, space: SpaceOwnership): boolean =>
  adminOver(principal, space) || roleIn(principal, space) === 'owner';

/**
 * Editors and owners (and admins) change what is in a Space. A private personal Space holds its user's personal
 * Agent only (the platform puts it there): every memory in it stays personal.
 */
const mayChangeContent = (principal: Principal, space: SpaceOwnership): boolean =>
  space.personalOf
    ? principal.kind === 'platform'
    : isAdmin(principal) || atLeast(roleIn(principal, space), 'editor');

/** Whether the principal created the Space: the same API key, or (signed in, or a key of theirs) the same user. */
function created(principal: Principal, space: SpaceOwnership): boolean {
  if (principal.kind !== 'apiKey' && principal.kind !== 'session') return false;
  if (!!space.createdByUserId && space.createdByUserId === principal.userId) return true;
  return (
    principal.kind === 'apiKey' && !!space.createdByApiKeyId && space.createdByApiKeyId === principal.keyId
  );
}

/** The Agent of an `AgentInSpace` as `agent.use` reads it: with its Space (null when it is not the Agent's). */
const inItsSpace = ({ agent, space }: AgentInSpace): AgentOwnership => ({
  ...agent,
  space: space !== null && space.id === agent.spaceId ? space : null,
});

function mayManageAgent(principal: Principal, resource: AgentInSpace): boolean {
  const { agent, space } = resource;
  if (!mayUseAgent(principal, inItsSpace(resource))) return false;
  if (agent.isPersonal || isAdmin(principal)) return true;
  return space !== null && space.id === agent.spaceId && mayChangeContent(principal, space);
}

/**
 * Writing an Agent's Knowledge (its documents, their tags, its tag set) is managing the Agent: every user of it reads
 * what is written there, in answers that cite it. An App token writes the Knowledge of the Agents on its allowlist
 * (the admin who registered it allowed that: the bridge's tag operations); through a session token only when its
 * person manages the Agent too.
 */
function mayWriteAgentKnowledge(principal: Principal, resource: AgentInSpace): boolean {
  if (principal.kind !== 'appToken') return mayManageAgent(principal, resource);
  return (
    mayUseAgent(principal, inItsSpace(resource)) &&
    (!principal.user || mayManageAgent(personOf(principal.user), resource))
  );
}

function mayChangeMembership(principal: Principal, change: MembershipChange): Decision {
  if (change.space.personalOf) return deny('personal_space_unshareable');
  const self =
    (principal.kind === 'apiKey' || principal.kind === 'session') && principal.userId === change.userId;
  if (self)
    // Leaving is everyone's; changing one's own role is nobody's (admins included: another admin does it).
    return change.newRole === null && (change.currentRole !== null || isAdmin(principal))
      ? ALLOW
      : deny('own_role_change_denied');
  if (adminOver(principal, change.space)) return ALLOW;
  const own = roleIn(principal, change.space);
  if (!atLeast(own, 'editor')) return deny('space_member_change_denied');
  if (rank(change.currentRole) > rank(own) || rank(change.newRole) > rank(own)) return deny('role_above_own');
  return ALLOW;
}

/** Whether the principal is a user's (an API key or a session), the only ones that own Spaces, keys and memories. */
const isUser = (principal: Principal) => principal.kind === 'apiKey' || principal.kind === 'session';

type Rule<A extends Action> = (principal: Principal, resource: Resources[A]) => Decision;

const RULES: { readonly [A in Action]: Rule<A> } = {
  'agent.create': (principal, space) =>
    !(
      isAdmin(principal) ||
      principal.kind === 'session' ||
      (principal.kind === 'apiKey' && principal.grants.kind === 'all')
    )
      ? deny('agent_creation_denied')
      : space === null
        ? ALLOW
        : allowIf(mayChangeContent(principal, space), 'space_change_denied'),
  'agent.use': (principal, agent) => allowIf(mayUseAgent(principal, agent), 'agent_access_denied'),
  'agent.manage': (principal, resource) =>
    !mayUseAgent(principal, inItsSpace(resource))
      ? deny('agent_access_denied')
      : allowIf(mayManageAgent(principal, resource), 'space_change_denied'),
  'space.create': (principal, setting) =>
    !(isUser(principal) || isAdmin(principal))
      ? deny('principal_not_supported')
      : allowIf(
          isAdmin(principal) || setting === null || setting.creatorRoles.includes('member'),
          'space_creation_restricted',
        ),
  'instance.settings.manage': (principal) => allowIf(isAdmin(principal), 'admin_required'),
  'space.read': (principal, { space, holdsReachableAgent }) =>
    allowIf(
      adminOver(principal, space) || holdsReachableAgent || roleIn(principal, space) !== null,
      'space_not_visible',
    ),
  'space.change': (principal, space) => allowIf(mayChangeSpace(principal, space), 'space_change_denied'),
  'space.content.change': (principal, space) =>
    allowIf(mayChangeContent(principal, space), 'space_change_denied'),
  'space.members.read': (principal, space) =>
    allowIf(adminOver(principal, space) || roleIn(principal, space) !== null, 'space_not_visible'),
  'space.member.change': (principal, change) => mayChangeMembership(principal, change),
  // Deny by default: a directory of the instance's people only for whoever may add someone (editor, owner, admin).
  'space.member.candidates': (principal, space) =>
    space.personalOf
      ? deny('personal_space_unshareable')
      : allowIf(
          adminOver(principal, space) || atLeast(roleIn(principal, space), 'editor'),
          'space_member_change_denied',
        ),
  'prompt.read': (principal, space) =>
    allowIf(adminOver(principal, space) || roleIn(principal, space) !== null, 'space_not_visible'),
  'prompt.change': (principal, space) => allowIf(mayChangeContent(principal, space), 'space_change_denied'),
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
  'memory.read': (principal, agent) =>
    allowIf(isUser(principal) && mayUseAgent(principal, agent), 'agent_access_denied'),
  'memory.personal.write': (principal, agent) =>
    allowIf(isUser(principal) && mayUseAgent(principal, agent), 'agent_access_denied'),
  'memory.shared.write': (principal, resource) =>
    !mayUseAgent(principal, inItsSpace(resource))
      ? deny('agent_access_denied')
      : allowIf(mayManageAgent(principal, resource), 'shared_memory_change_denied'),
  'skill.read': (principal, place) =>
    place.kind === 'global'
      ? ALLOW
      : place.kind === 'agent'
        ? allowIf(mayUseAgent(principal, inItsSpace(place)), 'agent_access_denied')
        : RULES['space.read'](principal, {
            space: place.space,
            holdsReachableAgent: place.holdsReachableAgent ?? false,
          }),
  'skill.change': (principal, place) =>
    place.kind === 'global'
      ? allowIf(isAdmin(principal), 'skill_change_denied')
      : place.kind === 'space'
        ? allowIf(mayChangeContent(principal, place.space), 'space_change_denied')
        : RULES['agent.manage'](principal, place),
  'skill.marketplace.curate': (principal) => allowIf(isAdmin(principal), 'admin_required'),
  'apiKey.manage': (principal) => allowIf(isAdmin(principal), 'admin_required'),
  'user.list': (principal) => allowIf(isAdmin(principal), 'admin_required'),
  'user.manage': (principal) => allowIf(isAdmin(principal), 'admin_required'),
  'user.self': (principal) => allowIf(isUser(principal), 'principal_not_supported'),
  'apiKey.own': (principal) => allowIf(isUser(principal), 'principal_not_supported'),
  'identity.link': (principal) => allowIf(principal.kind === 'session', 'principal_not_supported'),
  'usage.read.all': (principal) => allowIf(isAdmin(principal), 'admin_required'),
  'usage.read.own': (principal) => allowIf(isUser(principal), 'principal_not_supported'),
  'knowledgeIndex.manage': (principal) => allowIf(isAdmin(principal), 'admin_required'),
  'model.call': (principal) =>
    allowIf(principal.kind === 'apiKey' || isAdmin(principal), 'principal_not_supported'),
  'memory.own.erase': (principal) => allowIf(isUser(principal), 'principal_not_supported'),
  'audit.read': (principal, space) =>
    space === null
      ? allowIf(isAdmin(principal), 'admin_required')
      : allowIf(mayChangeSpace(principal, space), 'space_change_denied'),
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
