// One conversation of the list: its title (a link that opens it; a private one marked), and its actions: pin or
// unpin, rename inline (Enter saves, Esc cancels), archive or restore, delete (the list asks first).
import { useState } from 'preact/hooks';
import { t } from '../../i18n';
import type { Conversation } from './types';

export interface ConversationChange {
  readonly title?: string;
  readonly archived?: boolean;
  readonly pinned?: boolean;
}

export function ConversationItem({
  conversation: c,
  current,
  onOpen,
  onChange,
  onDelete,
}: {
  conversation: Conversation;
  current: boolean;
  onOpen: () => void;
  onChange: (change: ConversationChange) => Promise<void>;
  onDelete: () => void;
}) {
  const [renaming, setRenaming] = useState<string | null>(null);
  const title = c.title ?? c.id;
  const save = async () => {
    const next = renaming?.trim();
    setRenaming(null);
    if (next && next !== c.title) await onChange({ title: next });
  };
  return (
    <li class={current ? 'current' : ''} data-pinned={c.pinned ? 'true' : 'false'}>
      {renaming === null ? (
        <a
          href={`${location.pathname}?c=${c.id}`}
          aria-current={current ? 'page' : undefined}
          onClick={(e) => {
            e.preventDefault();
            onOpen();
          }}
        >
          {title}
        </a>
      ) : (
        <form
          class="rename"
          onSubmit={(e) => {
            e.preventDefault();
            void save();
          }}
        >
          <label>
            {t('renameConversation')}
            <input
              value={renaming}
              maxLength={200}
              autoFocus
              onInput={(e) => setRenaming((e.target as HTMLInputElement).value)}
              onKeyDown={(e) => {
                if (e.key === 'Escape') {
                  e.preventDefault();
                  setRenaming(null);
                }
              }}
            />
          </label>
          <button type="submit">{t('save')}</button>
        </form>
      )}
      {c.visibility === 'private' && <span class="badge">{t('private')}</span>}
      <div class="conversation-actions">
        <button
          type="button"
          aria-label={`${c.pinned ? t('unpin') : t('pin')} ${title}`}
          onClick={() => void onChange({ pinned: !c.pinned })}
        >
          {c.pinned ? t('unpin') : t('pin')}
        </button>
        <button
          type="button"
          aria-label={`${t('rename')} ${title}`}
          onClick={() => setRenaming(c.title ?? '')}
        >
          {t('rename')}
        </button>
        <button
          type="button"
          aria-label={`${c.archived ? t('unarchive') : t('archive')} ${title}`}
          onClick={() => void onChange({ archived: !c.archived })}
        >
          {c.archived ? t('unarchive') : t('archive')}
        </button>
        <button type="button" aria-label={`${t('delete')} ${title}`} onClick={onDelete}>
          {t('delete')}
        </button>
      </div>
    </li>
  );
}
