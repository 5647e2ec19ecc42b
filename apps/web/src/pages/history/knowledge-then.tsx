// The documents the Agent reached at the chosen moment (its own, its Space's then, Global), each with its status
// then, and which of them are gone since or new since (compared with now).
import { useEffect, useState } from 'preact/hooks';
import { api } from '../../api';
import { errorSentence } from '../../errors';
import { t } from '../../i18n';
import type { List } from '../../state';

interface Document {
  readonly id: string;
  readonly name: string;
  readonly status: 'Pending' | 'Processing' | 'Ready' | 'Failed';
  readonly scope: 'agent' | 'space' | 'global';
}

const documents = (agentId: string, asOf?: string) =>
  api<List<Document>>(
    'GET',
    `knowledge/${encodeURIComponent(agentId)}/documents?scope=all&limit=200${asOf ? `&asOf=${encodeURIComponent(asOf)}` : ''}`,
  );

export function KnowledgeThen({ agentId, asOf }: { agentId: string; asOf: string }) {
  const [then, setThen] = useState<readonly Document[] | null>(null);
  const [now, setNow] = useState<readonly Document[]>([]);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    setThen(null);
    void documents(agentId, asOf).then(
      (list) => {
        setThen(list.data);
        setError(null);
      },
      (failure: unknown) => setError(errorSentence(failure)),
    );
    void documents(agentId).then(
      (list) => setNow(list.data),
      () => undefined,
    );
  }, [agentId, asOf]);
  const added = then ? now.filter((doc) => !then.some((old) => old.id === doc.id)) : [];
  return (
    <section aria-labelledby="knowledge-then-title">
      <h2 id="knowledge-then-title">{t('historyKnowledge')}</h2>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {then && then.length === 0 && <p>{t('historyNoDocuments')}</p>}
      {then && then.length > 0 && (
        <ul>
          {then.map((doc) => (
            <li key={doc.id}>
              {doc.name} <span class="note">({t(`historyScope_${doc.scope}`)})</span>{' '}
              <span class={`status ${doc.status}`}>{t(`historyStatus_${doc.status}`)}</span>
              {!now.some((current) => current.id === doc.id) && (
                <>
                  {' '}
                  <span class="badge">{t('historyGoneSince')}</span>
                </>
              )}
            </li>
          ))}
        </ul>
      )}
      {added.length > 0 && (
        <p class="note">{t('historyAddedSince', { names: added.map((doc) => doc.name).join(', ') })}</p>
      )}
    </section>
  );
}
