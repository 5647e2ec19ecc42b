// What the policy decides over: the actions, the resource each one reads, and the answers (allow, or deny with a
// reason). The rules themselves are in the *.rules.ts files beside this one, one per kind of resource.
import type { Principal } from '../principal.js';

/** A member's role in a Space, weakest first. */
export const SPACE_ROLES = ['member', 'editor', 'owner'] as const;
export type SpaceRole = (typeof SPACE_ROLES)[number];

export interface AgentOwnership {
  readonly id: string;
  readonly isPersonal: boolean;
  readonly ownerUserId: string | null;
  /** Whether anyone may talk to it through its embed (only read for embed visitors). */
  readonly isPublic?: boolean;
  /**
   * The Agent's Space with its members, as the resolver read it (null: none, or gone). Every resolver reads it: an Agent
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

/** An Agent to manage, with its Space as read by the resolver (null when it has none or the Space is gone). */
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
   * the principal is asked (the Space is then checked as `space.content.change` by the resolver).
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
  /**
   * Reach a thing of one person's own (a conversation, a personal memory, a memory proposal, an answer that used a
   * memory): that user alone, admins included (an embed visitor: its own conversations). The resolver has already asked for the Agent it belongs to.
   */
  'user.own': { readonly ownerUserId: string | null };
  /** Developer Settings: create, list, revoke and rotate one's own API keys (grants checked Agent by Agent). */
  'apiKey.own': null;
  /** Grant a key of one's own every Agent (`all`): a user who reaches every Agent. */
  'apiKey.grant.all': null;
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
  /** Use the platform as an MCP server (/mcp): a user's API key; each tool and resource asks for its Agent. */
  'mcp.connect': null;
  /** Erase everything one user stored in one's own name (one's memories of every Agent). */
  'memory.own.erase': null;
  /** Read the audit trail: of a Space and what is inside it (its changer), or the whole trail (null: admins). */
  'audit.read': SpaceOwnership | null;
  /** Replay recorded turns (anyone's) against another model and read the old and new answers: admins. */
  'audit.replay': null;
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
  /** A process manager's step (place a personal Agent, create a personal Space, adopt a Space's creator): the platform alone. */
  'platform.step': null;
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
  'user.own',
  'apiKey.own',
  'apiKey.grant.all',
  'identity.link',
  'usage.read.all',
  'usage.read.own',
  'knowledgeIndex.manage',
  'model.call',
  'mcp.connect',
  'memory.own.erase',
  'audit.read',
  'audit.replay',
  'provenance.read',
  'app.manage',
  'app.standalone',
  'app.view',
  'platform.step',
] as const satisfies readonly Action[];

/** Why a principal is refused: the gate uses it as the error code of a 403 (or answer 404 to hide existence). */
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
  | 'not_own'
  | 'no_rule';

export type Decision = { readonly allow: true } | { readonly allow: false; readonly reason: DenyReason };

export type Rule<A extends Action> = (principal: Principal, resource: Resources[A]) => Decision;

/** The rules of some actions: each rules file gives those of its resource, the policy puts them together. */
export type RuleSet<A extends Action> = { readonly [K in A]: Rule<K> };
