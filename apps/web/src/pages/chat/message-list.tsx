// The conversation's messages: the person's questions (with their attachments), the answers (streamed in, with
// citations, and what their turn did with memory), and each one's actions once the turn is done (message-actions.tsx):
// copy, edit a question and rerun from it, regenerate the last answer, delete a message, the model and its tokens, and
// a turn's versions (shown once per turn: under its answer, or under its question while it has none).
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { t } from '../../i18n';
import { AttachmentChips } from './attachment-chips';
import { MemoryNotes } from './memory-notes';
import { MessageActions } from './message-actions';
import { MessageBody } from './message-body';
import type { ChatMessage, Citation } from './types';
import { useMessageWindow } from './use-message-window';

// Over 100 lines on purpose: one message row's parts (its text or editor, attachments, memory, actions) read in order.
export function MessageList({
  agentId,
  messagesPath,
  messages,
  busy,
  onRerun,
  onRegenerate,
  onDelete,
  onSwitch,
  onCite,
  details,
}: {
  agentId: string;
  /** `…/conversation/{id}/messages`: null while the conversation is not stored yet. */
  messagesPath: string | null;
  messages: readonly ChatMessage[];
  busy: boolean;
  onRerun: (index: number, text: string) => void;
  onRegenerate: () => void;
  onDelete: (id: string) => void;
  /** Continues the conversation from the branch holding this message. */
  onSwitch: (messageId: string) => void;
  onCite: (citation: Citation) => void;
  /** What the chat shows under a message besides its text (an answer's code runs, "Why this answer", …). */
  details?: (message: ChatMessage, index: number) => ComponentChildren;
}) {
  const [editing, setEditing] = useState<{ id: string; text: string } | null>(null);
  const lastAssistant = messages.findLastIndex((m) => m.role === 'assistant');
  const versionsAt = (m: ChatMessage, index: number) => {
    const question = m.role === 'assistant' ? messages[index - 1] : m;
    if (m.role === 'user' && messages[index + 1]?.role === 'assistant') return null;
    return question?.role === 'user' ? (question.siblings ?? null) : null;
  };
  // Only the rows on screen are in the page (use-message-window.ts says what that costs and when it does not apply).
  const view = useMessageWindow(messages);
  return (
    <ol class="messages" aria-label={t('messages')} aria-live={view.live} ref={view.list} style={view.style}>
      {view.rows.map(({ message: m, index }) => (
        <li
          key={m.id}
          {...view.row(index, m.id)}
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
          {m.attachments && <AttachmentChips attachments={m.attachments} />}
          {m.role === 'assistant' && !m.streaming && <MemoryNotes agentId={agentId} message={m} />}
          {m.status === 'incomplete' && <p class="note">{t('incomplete')}</p>}
          {details?.(m, index)}
          {!m.streaming && !busy && !m.id.startsWith('pending') && editing?.id !== m.id && (
            <MessageActions
              message={m}
              last={index === lastAssistant}
              messagesPath={messagesPath}
              onEdit={() => setEditing({ id: m.id, text: m.content ?? '' })}
              onRegenerate={onRegenerate}
              onDelete={() => onDelete(m.id)}
              versions={versionsAt(m, index)}
              onSwitch={onSwitch}
            />
          )}
        </li>
      ))}
    </ol>
  );
}
