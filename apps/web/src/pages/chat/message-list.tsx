// The conversation's messages: the person's questions, the answers (streamed in, with citations), and each one's
// actions once the turn is done: edit a question and rerun from it, regenerate the last answer, delete a message.
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { t } from '../../i18n';
import { MessageBody } from './message-body';
import type { ChatMessage, Citation } from './types';

export function MessageList({
  messages,
  busy,
  onRerun,
  onRegenerate,
  onDelete,
  onCite,
  details,
}: {
  messages: readonly ChatMessage[];
  busy: boolean;
  onRerun: (index: number, text: string) => void;
  onRegenerate: () => void;
  onDelete: (id: string) => void;
  onCite: (citation: Citation) => void;
  /** What the chat shows under a message besides its text (an answer's code runs, "Why this answer", …). */
  details?: (message: ChatMessage, index: number) => ComponentChildren;
}) {
  const [editing, setEditing] = useState<{ id: string; text: string } | null>(null);
  const lastAssistant = messages.findLastIndex((m) => m.role === 'assistant');
  return (
    <ol class="messages" aria-live="polite">
      {messages.map((m, index) => (
        <li
          key={m.id}
          class={`message ${m.role}`}
          data-status={m.status ?? ''}
          data-streaming={m.streaming ? 'true' : 'false'}
        >
          <span class="role">{m.role === 'user' ? t('you') : t('assistant')}</span>
          {editing?.id === m.id ? (
            <form
              onSubmit={(e) => {
                e.preventDefault();
                const text = editing.text;
                setEditing(null);
                onRerun(index, text);
              }}
            >
              <label>
                {t('edit')}
                <textarea
                  value={editing.text}
                  onInput={(e) => setEditing({ id: m.id, text: (e.target as HTMLTextAreaElement).value })}
                />
              </label>
              <button type="submit">{t('saveAndRerun')}</button>
              <button type="button" onClick={() => setEditing(null)}>
                {t('cancel')}
              </button>
            </form>
          ) : m.role === 'assistant' ? (
            m.content ? (
              <MessageBody
                content={m.content}
                citations={m.citations}
                onCite={(n) => {
                  const cited = m.citations.find((c) => c.index === n);
                  if (cited) onCite(cited);
                }}
              />
            ) : (
              <p class="thinking">{m.streaming ? t('thinking') : ''}</p>
            )
          ) : (
            <p class="user-text">{m.content}</p>
          )}
          {m.status === 'incomplete' && <p class="note">{t('incomplete')}</p>}
          {details?.(m, index)}
          {!m.streaming && !busy && !m.id.startsWith('pending') && editing?.id !== m.id && (
            <div class="actions">
              {m.role === 'user' && (
                <button type="button" onClick={() => setEditing({ id: m.id, text: m.content ?? '' })}>
                  {t('edit')}
                </button>
              )}
              {m.role === 'assistant' && index === lastAssistant && (
                <button type="button" onClick={onRegenerate}>
                  {t('regenerate')}
                </button>
              )}
              <button type="button" onClick={() => onDelete(m.id)}>
                {t('deleteMessage')}
              </button>
            </div>
          )}
        </li>
      ))}
    </ol>
  );
}
