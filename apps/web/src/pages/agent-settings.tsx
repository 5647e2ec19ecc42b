// An Agent's settings page: what the person builds (name, model, system prompt, switches, embed: loaded on first use),
// the tools of its Apps, the Knowledge it reaches (pages/knowledge, loaded on first use) and its Skills. Someone who may
// use the Agent but not manage it reads them, with the reason, and is offered nothing to change.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api';
import { t } from '../i18n';
import { lazy } from '../lazy';
import { linkTo } from '../router';
import type { Me } from '../state';
import { Skills } from './skills';
import { useMayManage } from './may-manage';
import type { AgentDetails } from './build/build-kit';

const AgentBuilder = lazy(() => import('./build/agent-builder'), 'AgentBuilder');
const AgentTools = lazy(() => import('./build/agent-tools'), 'AgentTools');
const AgentKnowledge = lazy(() => import('./knowledge/agent-knowledge'), 'AgentKnowledge');

export function AgentSettings({ agentId, me }: { agentId: string; me: Me }) {
  const [agent, setAgent] = useState<AgentDetails | null>(null);
  useEffect(
    () => void api<AgentDetails>('GET', `agents/${agentId}`).then(setAgent, () => undefined),
    [agentId],
  );
  const mayManage = useMayManage(agent, me);
  if (!agent || mayManage === null) return <p class="page">{t('loading')}</p>;
  const readOnly = !mayManage;
  return (
    <section class="page build" aria-labelledby="settings-title">
      <h1 id="settings-title">
        {agent.name}: {t('settings')}
      </h1>
      {readOnly && (
        <p class="note read-only" role="note">
          {t('readOnlySettings')}
        </p>
      )}
      <p>
        <a href={`/agent/${agent.id}/history`} onClick={linkTo(`/agent/${agent.id}/history`)}>
          {t('historyLink')}
        </a>
      </p>
      <AgentBuilder agent={agent} me={me} onSaved={setAgent} />
      <AgentTools agentId={agent.id} readOnly={readOnly} />
      <AgentKnowledge agent={agent} me={me} mayManage={mayManage} />
      <Skills agentId={agent.id} readOnly={readOnly} />
    </section>
  );
}
