// The message box and its companions: the prompt library's button, attachments (chosen, dropped or pasted, shown as
// chips until sent), the incognito toggle (a new conversation only), and Send or, while an answer streams, Stop.
// Keys: Enter sends, Shift+Enter breaks the line, Esc stops the answer being written, `/` in an empty box opens the
// prompt library. The box grows with its text up to a limit (styles.css), then scrolls.
import type { RefObject } from 'preact';
import { useLayoutEffect, useState } from 'preact/hooks';
import { t } from '../../i18n';
import { AttachmentChips } from './attachment-chips';

const asInfo = (file: File) => ({ name: file.name, mimeType: file.type, sizeBytes: file.size });

// Over 100 lines on purpose: one form whose keys (Enter, Shift+Enter, Esc, /), files (chosen, dropped, pasted) and
// growing box share its text and its chips.
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
  const [dropping, setDropping] = useState(false);
  const add = (more: readonly File[]) => {
    if (more.length) setFiles((current) => [...current, ...more]);
  };
  // The height follows the text however it changed (typed, a prompt inserted, cleared after sending).
  useLayoutEffect(() => {
    const area = box.current;
    if (!area) return;
    area.style.height = 'auto';
    area.style.height = `${area.scrollHeight + area.offsetHeight - area.clientHeight}px`;
  }, [draft]);
  const submit = (event: Event) => {
    event.preventDefault();
    if (busy || !draft.trim()) return;
    const text = draft;
    const attached = files;
    onDraft('');
    setFiles([]);
    onSend(text, attached);
  };
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.isComposing) return;
    if (e.key === 'Enter' && !e.shiftKey) submit(e);
    else if (e.key === '/' && draft === '' && !e.ctrlKey && !e.metaKey && !e.altKey) {
      e.preventDefault();
      onOpenPrompts();
    }
  };
  return (
    <form
      class={`composer${dropping ? ' dropping' : ''}`}
      onSubmit={submit}
      // Esc from any of the composer's controls (the box, Stop, the file field) stops the answer being written.
      onKeyDown={(e) => {
        if (e.key !== 'Escape' || !busy) return;
        e.preventDefault();
        onStop();
      }}
      onDragOver={(e) => {
        if (!e.dataTransfer?.types.includes('Files')) return;
        e.preventDefault();
        setDropping(true);
      }}
      onDragLeave={() => setDropping(false)}
      onDrop={(e) => {
        if (!e.dataTransfer?.files.length) return;
        e.preventDefault();
        setDropping(false);
        add(Array.from(e.dataTransfer.files));
      }}
    >
      <label class="message-box">
        {t('message')}
        <textarea
          ref={box}
          rows={2}
          value={draft}
          aria-describedby="composer-keys"
          onInput={(e) => onDraft((e.target as HTMLTextAreaElement).value)}
          onKeyDown={onKeyDown}
          onPaste={(e) => {
            const pasted = Array.from(e.clipboardData?.files ?? []);
            if (pasted.length === 0) return;
            e.preventDefault();
            add(pasted);
          }}
        />
      </label>
      <p id="composer-keys" class="hint">
        {t('composerKeys')}
      </p>
      <AttachmentChips
        attachments={files.map(asInfo)}
        onRemove={(index) => setFiles((current) => current.filter((_, at) => at !== index))}
      />
      <div class="composer-actions">
        <button type="button" class="open-prompts" aria-haspopup="dialog" onClick={onOpenPrompts}>
          {t('openPromptLibrary')}
        </button>
        <label class="attach">
          {t('attach')}
          <input
            type="file"
            multiple
            onChange={(e) => {
              const input = e.target as HTMLInputElement;
              add(Array.from(input.files ?? []));
              // The same file chosen again after removing its chip is a change too.
              input.value = '';
            }}
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
      </div>
    </form>
  );
}
