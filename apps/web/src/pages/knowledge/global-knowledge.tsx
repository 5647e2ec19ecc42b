// `/knowledge` (admins): the Global documents every Agent of the instance searches (`scope=global`), reached through
// any Agent (the API addresses every level through one); without an Agent there is nothing to reach them through.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../../api';
import { t, type Label } from '../../i18n';
import type { Agent, List } from '../../state';
import { ErrorLine } from './error-line';
import { KnowledgeArea } from './knowledge-area';
import { knowledgeError } from './knowledge-kit';

export function GlobalKnowledge() {
  const [agents, setAgents] = useState<readonly Agent[] | null>(null);
  const [error, setError] = useState<Label | null>(null);
  useEffect(() => {
    api<List<Agent>>('GET', 'agents?limit=200').then(
      (list) => setAgents(list.data),
      (failure: unknown) => setError(knowledgeError(failure)),
    );
  }, []);
  const through = agents?.[0];
  return (
    <section class="page build kn" aria-labelledby="global-knowledge-title">
      <h1 id="global-knowledge-title">{t('knGlobalTitle')}</h1>
      <p class="note">{t('knGlobalHint')}</p>
      <ErrorLine label={error} />
      {agents === null ? (
        !error && <p>{t('loading')}</p>
      ) : through ? (
        <KnowledgeArea agentId={through.id} scope="global" readOnlyReason={null} tags={null} />
      ) : (
        <p class="readonly-reason">{t('knNeedsAgent')}</p>
      )}
    </section>
  );
}
