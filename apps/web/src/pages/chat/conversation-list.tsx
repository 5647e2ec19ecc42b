// The Agent's conversations: a new one, a search over their titles and messages (the API's `q`: the texts are sealed,
// only the server opens them; titles are matched here while it answers), the archived ones on demand, grouped Pinned /
// Today / Last 7 days / Older, each one's pin, rename, archive and delete (after a question). The list reloads when
// a turn ends (`version` changes). Incognito conversations are never listed (nothing of them is kept).
import { useEffect, useState } from 'preact/hooks';
import { api } from '../../api';
import { errorSentence } from '../../errors';
import { t } from '../../i18n';
import type { List } from '../../state';
import { ConfirmDialog } from '../confirm-dialog';
import { groupConversations } from './conversation-groups';
import { ConversationItem, type ConversationChange } from './conversation-item';
import type { Conversation } from './types';

// Over 100 lines on purpose: the list's search, its groups and each item's changes share the one list read.
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
  const [deleting, setDeleting] = useState<Conversation | null>(null);
  const [found, setFound] = useState<Conversation[] | null>(null);
  const load = () =>
    api<List<Conversation>>('GET', `${base}?limit=200&archived=${showArchived ? 'all' : 'false'}`).then(
      (list) => setConversations(list.data),
      () => undefined,
    );
  useEffect(() => void load(), [base, showArchived, version]);
  useEffect(() => {
    const q = search.trim();
    setFound(null);
    if (!q) return;
    let current = true;
    // After a pause in typing, not at every key.
    const timer = setTimeout(() => {
      api<List<Conversation>>(
        'GET',
        `${base}?limit=200&archived=${showArchived ? 'all' : 'false'}&q=${encodeURIComponent(q)}`,
      ).then(
        (list) => current && setFound(list.data),
        (e: unknown) => current && onError(errorSentence(e)),
      );
    }, 250);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [search, conversations]);
  const change = async (conversation: Conversation, body: ConversationChange) => {
    await api('PATCH', `${base}/${conversation.id}`, body).catch((e: unknown) => onError(errorSentence(e)));
    void load();
  };
  const remove = async (conversation: Conversation) => {
    await api('DELETE', `${base}/${conversation.id}`).catch((e: unknown) => onError(errorSentence(e)));
    if (conversation.id === current) onOpen(null);
    void load();
  };
  const needle = search.trim().toLowerCase();
  const shown = found ?? conversations.filter((c) => (c.title ?? c.id).toLowerCase().includes(needle));
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
          aria-describedby="search-conversations-hint"
          onInput={(e) => setSearch((e.target as HTMLInputElement).value)}
        />
      </label>
      <p id="search-conversations-hint" class="hint">
        {t('searchConversationsHint')}
      </p>
      <label class="check">
        <input
          type="checkbox"
          checked={showArchived}
          onChange={(e) => setShowArchived((e.target as HTMLInputElement).checked)}
        />
        {t('showArchived')}
      </label>
      {needle && found?.length === 0 && <p class="note">{t('noConversationFound')}</p>}
      {groupConversations(shown, new Date()).map((group) => (
        <section key={group.label} class="conversation-group" aria-labelledby={`group-${group.label}`}>
          <h3 id={`group-${group.label}`}>{t(group.label)}</h3>
          <ul>
            {group.conversations.map((c) => (
              <ConversationItem
                key={c.id}
                conversation={c}
                current={c.id === current}
                onOpen={() => onOpen(c.id)}
                onChange={(body) => change(c, body)}
                onDelete={() => setDeleting(c)}
              />
            ))}
          </ul>
        </section>
      ))}
      {deleting && (
        <ConfirmDialog
          title={t('deleteConversationTitle', { title: deleting.title ?? deleting.id })}
          text={t('deleteConversationText')}
          confirm={t('delete')}
          onConfirm={() => void remove(deleting)}
          onClose={() => setDeleting(null)}
        />
      )}
    </section>
  );
}
