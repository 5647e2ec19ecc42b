// The Agent's conversations: a new one, a search over their titles, the archived ones on demand, and each one's
// archive and delete. The list reloads when a turn ends (`version` changes).
import { useEffect, useState } from 'preact/hooks';
import { api } from '../../api';
import { errorSentence } from '../../errors';
import { t } from '../../i18n';
import type { List } from '../../state';
import type { Conversation } from './types';

export function ConversationList({
  base,
  current,
  version,
  onOpen,
  onError,
}: {
  /** The Agent's conversation route. */
  base: string;
  current: string | null;
  version: number;
  onOpen: (id: string | null) => void;
  onError: (sentence: string) => void;
}) {
  const [conversations, setConversations] = useState<Conversation[]>([]);
  const [showArchived, setShowArchived] = useState(false);
  const [search, setSearch] = useState('');
  const load = () =>
    api<List<Conversation>>('GET', `${base}?limit=200&archived=${showArchived ? 'all' : 'false'}`).then(
      (list) => setConversations(list.data),
      () => undefined,
    );
  useEffect(() => void load(), [base, showArchived, version]);
  const archive = async (conversation: Conversation) => {
    await api('PATCH', `${base}/${conversation.id}`, { archived: !conversation.archived }).catch(
      (e: unknown) => onError(errorSentence(e)),
    );
    void load();
  };
  const remove = async (conversation: Conversation) => {
    await api('DELETE', `${base}/${conversation.id}`).catch((e: unknown) => onError(errorSentence(e)));
    if (conversation.id === current) onOpen(null);
    void load();
  };
  const shown = conversations.filter((c) =>
    (c.title ?? c.id).toLowerCase().includes(search.trim().toLowerCase()),
  );
  return (
    <section class="conversations" aria-labelledby="conversations-title">
      <h2 id="conversations-title">{t('conversations')}</h2>
      <button type="button" onClick={() => onOpen(null)}>
        {t('newConversation')}
      </button>
      <label>
        {t('searchConversations')}
        <input
          type="search"
          value={search}
          onInput={(e) => setSearch((e.target as HTMLInputElement).value)}
        />
      </label>
      <label class="check">
        <input
          type="checkbox"
          checked={showArchived}
          onChange={(e) => setShowArchived((e.target as HTMLInputElement).checked)}
        />
        {t('showArchived')}
      </label>
      <ul>
        {shown.map((c) => (
          <li key={c.id} class={c.id === current ? 'current' : ''}>
            <a
              href={`${location.pathname}?c=${c.id}`}
              onClick={(e) => {
                e.preventDefault();
                onOpen(c.id);
              }}
            >
              {c.title ?? c.id}
            </a>
            <button
              type="button"
              onClick={() => void archive(c)}
              aria-label={`${c.archived ? t('unarchive') : t('archive')} ${c.title ?? c.id}`}
            >
              {c.archived ? t('unarchive') : t('archive')}
            </button>
            <button
              type="button"
              onClick={() => void remove(c)}
              aria-label={`${t('delete')} ${c.title ?? c.id}`}
            >
              {t('delete')}
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
