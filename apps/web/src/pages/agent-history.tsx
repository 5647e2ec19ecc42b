// `/agent/{agentId}/history`: an Agent as it was at any moment, folded from the log — its settings (and what changed
// since), the Knowledge it reached with each document's status then, its Skills with the versions active then, and,
// for its managers, its shared memories then. The moment lives in the address (`?asOf=`), so a view of yesterday is a
// link to share.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api';
import { errorSentence } from '../errors';
import { t } from '../i18n';
import { linkTo, navigate } from '../router';
import type { Me } from '../state';
import type { AgentDetails } from './build/build-kit';
import { useMayManage } from './may-manage';
import { AsOfControl } from './history/as-of-control';
import { ConfigThen } from './history/config-then';
import { KnowledgeThen } from './history/knowledge-then';
import { MemoriesThen } from './history/memories-then';
import { SkillsThen } from './history/skills-then';

const DAY = 86_400_000;

export function AgentHistory({ agentId, me, search }: { agentId: string; me: Me; search: string }) {
  const asOf = new URLSearchParams(search).get('asOf') ?? new Date(Date.now() - DAY).toISOString();
  const id = encodeURIComponent(agentId);
  const [now, setNow] = useState<AgentDetails | null>(null);
  const [then, setThen] = useState<AgentDetails | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => void api<AgentDetails>('GET', `agents/${id}`).then(setNow, () => undefined), [agentId]);
  useEffect(() => {
    setThen(null);
    void api<AgentDetails>('GET', `agents/${id}?asOf=${encodeURIComponent(asOf)}`).then(
      (agent) => {
        setThen(agent);
        setError(null);
      },
      (failure: unknown) => setError(errorSentence(failure)),
    );
  }, [agentId, asOf]);
  const mayManage = useMayManage(now, me);
  const settings = `/agent/${agentId}/settings`;
  return (
    <section class="page history" aria-labelledby="history-title">
      <h1 id="history-title">{t('historyTitle', { name: now?.name ?? '…' })}</h1>
      <p>
        <a href={settings} onClick={linkTo(settings)}>
          {t('historyBackToSettings')}
        </a>
      </p>
      <AsOfControl
        agentId={agentId}
        asOf={asOf}
        onChange={(next) => navigate(`/agent/${agentId}/history?asOf=${encodeURIComponent(next)}`)}
      />
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {then && <ConfigThen then={then} now={now} />}
      {then && <KnowledgeThen agentId={agentId} asOf={asOf} />}
      {then && <SkillsThen agentId={agentId} asOf={asOf} />}
      {then && mayManage && <MemoriesThen agentId={agentId} asOf={asOf} />}
    </section>
  );
}
