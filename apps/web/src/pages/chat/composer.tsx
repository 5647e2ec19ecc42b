// The message box and its companions: the prompt library's button, attachments, the incognito toggle (a new
// conversation only), and Send or, while an answer streams, Stop. Enter sends, Shift+Enter breaks the line.
import type { RefObject } from 'preact';
import { useState } from 'preact/hooks';
import { t } from '../../i18n';

export function Composer({
  draft,
  onDraft,
  box,
  busy,
  incognito,
  onIncognito,
  onSend,
  onStop,
  onOpenPrompts,
}: {
  draft: string;
  onDraft: (text: string) => void;
  box: RefObject<HTMLTextAreaElement | null>;
  busy: boolean;
  /** null: the conversation exists (its visibility is set). */
  incognito: boolean | null;
  onIncognito: (on: boolean) => void;
  onSend: (text: string, attachments: File[]) => void;
  onStop: () => void;
  onOpenPrompts: () => void;
}) {
  const [files, setFiles] = useState<File[]>([]);
  const submit = (event: Event) => {
    event.preventDefault();
    const text = draft;
    const attached = files;
    onDraft('');
    setFiles([]);
    onSend(text, attached);
  };
  return (
    <form class="composer" onSubmit={submit}>
      <label class="message-box">
        {t('message')}
        <textarea
          ref={box}
          value={draft}
          onInput={(e) => onDraft((e.target as HTMLTextAreaElement).value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && !e.shiftKey) submit(e);
          }}
        />
      </label>
      <button type="button" class="open-prompts" aria-haspopup="dialog" onClick={onOpenPrompts}>
        {t('openPromptLibrary')}
      </button>
      <label class="attach">
        {t('attach')}
        <input
          type="file"
          multiple
          onChange={(e) => setFiles(Array.from((e.target as HTMLInputElement).files ?? []))}
        />
      </label>
      {incognito !== null && (
        <label class="check">
          <input
            type="checkbox"
            checked={incognito}
            onChange={(e) => onIncognito((e.target as HTMLInputElement).checked)}
          />
          {t('incognito')}
        </label>
      )}
      {busy ? (
        <button type="button" class="stop" onClick={onStop}>
          {t('stop')}
        </button>
      ) : (
        <button type="submit">{t('send')}</button>
      )}
    </form>
  );
}
