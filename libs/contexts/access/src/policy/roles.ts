// The building blocks of the rules: Space roles, who uses an Agent, who manages one, who changes a Space. Shared by
// the *.rules.ts files; nothing outside the policy reads them.
import type { AgentAccess } from '../grants.js';
import type { ApiKeyPrincipal, AppTokenPrincipal, Principal, SessionPrincipal } from '../principal.js';
import {
  SPACE_ROLES,
  type AgentInSpace,
  type AgentOwnership,
  type Decision,
  type DenyReason,
  type MembershipChange,
  type SpaceOwnership,
  type SpaceRole,
} from './resources.js';

export const rank = (role: SpaceRole | null): number => (role === null ? -1 : SPACE_ROLES.indexOf(role));
export const atLeast = (role: SpaceRole | null, floor: SpaceRole): boolean => rank(role) >= rank(floor);

export const ALLOW: Decision = { allow: true };
export const deny = (reason: DenyReason): Decision => ({ allow: false, reason });
export const allowIf = (condition: boolean, reason: DenyReason): Decision =>
  condition ? ALLOW : deny(reason);

export const granted = (grants: AgentAccess, agentId: string) =>
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
 * one whose resolver did not read its Space (undefined), is no member's.
 */
export function memberOfAgentSpace(principal: Principal, agent: AgentOwnership): boolean {
  const space = (agent as { space?: SpaceOwnership | null }).space;
  return space !== undefined && space !== null && roleIn(principal, space) !== null;
}

/** Whether an API key's user is an instance admin (an admin key's always is; the guard reads the user's role). */
export const keyUserIsAdmin = (principal: ApiKeyPrincipal): boolean =>
  principal.isAdmin || principal.userIsAdmin === true;

export function mayUseAgent(principal: Principal, agent: AgentOwnership): boolean {
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
export const personOf = (user: NonNullable<AppTokenPrincipal['user']>): SessionPrincipal => ({
  kind: 'session',
  userId: user.userId,
  isAdmin: user.isAdmin,
});

export const isAdmin = (principal: Principal): boolean =>
  principal.kind === 'platform' ||
  ((principal.kind === 'apiKey' || principal.kind === 'session') && principal.isAdmin);

/** Admins reach every Space but a user's private personal one (the platform reaches that too). */
export const adminOver = (principal: Principal, space: SpaceOwnership): boolean =>
  principal.kind === 'platform' || (isAdmin(principal) && !space.personalOf);

/** Owners (and admins) rename and delete a Space. */
export const mayChangeSpace = (principal: Principal, space: SpaceOwnership): boolean =>
  adminOver(principal, space) || roleIn(principal, space) === 'owner';

/**
 * Editors and owners (and admins) change what is in a Space. A private personal Space holds its user's personal
 * Agent only (the platform puts it there): every memory in it stays personal.
 */
export const mayChangeContent = (principal: Principal, space: SpaceOwnership): boolean =>
  space.personalOf
    ? principal.kind === 'platform'
    : isAdmin(principal) || atLeast(roleIn(principal, space), 'editor');

/** Whether the principal created the Space: the same API key, or (signed in, or a key of theirs) the same user. */
export function created(principal: Principal, space: SpaceOwnership): boolean {
  if (principal.kind !== 'apiKey' && principal.kind !== 'session') return false;
  if (!!space.createdByUserId && space.createdByUserId === principal.userId) return true;
  return (
    principal.kind === 'apiKey' && !!space.createdByApiKeyId && space.createdByApiKeyId === principal.keyId
  );
}

/** The Agent of an `AgentInSpace` as `agent.use` reads it: with its Space (null when it is not the Agent's). */
export const inItsSpace = ({ agent, space }: AgentInSpace): AgentOwnership => ({
  ...agent,
  space: space !== null && space.id === agent.spaceId ? space : null,
});

export function mayManageAgent(principal: Principal, resource: AgentInSpace): boolean {
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
export function mayWriteAgentKnowledge(principal: Principal, resource: AgentInSpace): boolean {
  if (principal.kind !== 'appToken') return mayManageAgent(principal, resource);
  return (
    mayUseAgent(principal, inItsSpace(resource)) &&
    (!principal.user || mayManageAgent(personOf(principal.user), resource))
  );
}

export function mayChangeMembership(principal: Principal, change: MembershipChange): Decision {
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
export const isUser = (principal: Principal) => principal.kind === 'apiKey' || principal.kind === 'session';
