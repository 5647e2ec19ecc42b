// Whether the person signed in may change an Agent's settings, as the API's policy (`agent.manage`) decides: an admin,
// the owner of a personal Agent, or an editor or owner of the Agent's Space. The settings page shows what they may not
// change read-only; the API still decides every change.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api';
import type { Agent, List, Me } from '../state';

/** null while the person's role in the Agent's Space is being read. */
export function useMayManage(agent: Agent | null, me: Me): boolean | null {
  const [mayManage, setMayManage] = useState<boolean | null>(null);
  useEffect(() => {
    if (!agent) return;
    if (me.role === 'admin' || agent.isPersonal) return setMayManage(true);
    if (!agent.spaceId) return setMayManage(false);
    void api<List<{ userId: string; role: string }>>(
      'GET',
      `spaces/${encodeURIComponent(agent.spaceId)}/members?limit=200`,
    ).then(
      (members) => {
        const role = members.data.find((m) => m.userId === me.id)?.role;
        setMayManage(role === 'editor' || role === 'owner');
      },
      () => setMayManage(false),
    );
  }, [agent?.id, agent?.spaceId, me.id, me.role]);
  return mayManage;
}
