// Whether the person may manage an Agent (change or delete it), and why not: its Space's owners and editors and the
// admins manage a shared Agent (a member uses it: the API answers `space_change_denied`), a personal Agent its user.
import { t } from '../../i18n';
import type { Me } from '../../state';
import { useSpaceRole, type AgentDetails } from './build-kit';

export interface AgentAccess {
  /** undefined while the person's role is loading. */
  readonly mayManage: boolean | undefined;
  readonly reason: string;
}

export function useAgentAccess(agent: AgentDetails, me: Me): AgentAccess {
  const role = useSpaceRole(agent.isPersonal ? null : agent.spaceId, me);
  if (agent.isPersonal)
    return { mayManage: agent.ownerUserId === me.id, reason: t('personalAgentOwnerOnly') };
  if (role === undefined) return { mayManage: undefined, reason: '' };
  return {
    mayManage: role === 'owner' || role === 'editor',
    reason: role === 'member' ? t('agentReadOnlyMember') : t('agentManagersOnly'),
  };
}
