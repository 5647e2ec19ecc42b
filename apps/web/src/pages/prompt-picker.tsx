// The chat's way into the Space's prompt library: a modal dialog (native <dialog>: focus stays inside, Escape
// closes) with a search field and the prompts; choosing one puts its text into the message box, which the person
// sends or not. Loaded on first use, so the chat page's JavaScript does not carry it.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api';
import { errorSentence } from '../errors';
import { t } from '../i18n';
import type { List } from '../state';

export interface Prompt {
  readonly id: string;
  readonly spaceId: string;
  readonly version: number;
  readonly title: string;
  readonly text: string;
  readonly description: string;
  readonly tags: readonly string[];
  readonly updatedAt: string;
}

/** The Space's prompts (the API lists them oldest first, 200 a page; the library is searched here). */
export const loadPrompts = async (spaceId: string): Promise<Prompt[]> => {
  const prompts: Prompt[] = [];
  let cursor: string | null | undefined = null;
  do {
    const page: List<Prompt> = await api<List<Prompt>>(
      'GET',
      `spaces/${encodeURIComponent(spaceId)}/prompts?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    prompts.push(...page.data);
    cursor = page.nextCursor;
  } while (cursor && prompts.length < 2000);
  return prompts;
};

/** Whether a prompt matches a search: every word in its title, description, tags or text (any case). */
export const matches = (prompt: Prompt, search: string): boolean => {
  const haystack = [prompt.title, prompt.description, prompt.tags.join(' '), prompt.text]
    .join('\n')
    .toLowerCase();
  return search
    .toLowerCase()
    .split(/\s+/)
    .filter(Boolean)
    .every((word) => haystack.includes(word));
};

export function PromptPicker({
  spaceId,
  onChoose,
  onClose,
  focusAfter,
}: {
  spaceId: string;
  onChoose: (text: string) => void;
  onClose: () => void;
  /**
   * Where the focus goes once the dialog has closed (it first goes back to what opened it): called right after
   * `close()`, before a next key can land elsewhere, and again when the close event comes (Escape closes without us).
   */
  focusAfter?: () => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const close = () => {
    dialog.current?.close();
    focusAfter?.();
  };
  const [prompts, setPrompts] = useState<Prompt[] | null>(null);
  const [search, setSearch] = useState('');
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    dialog.current?.showModal();
    void loadPrompts(spaceId).then(setPrompts, (e: unknown) => setError(errorSentence(e)));
  }, [spaceId]);
  const shown = (prompts ?? []).filter((p) => matches(p, search));
  return (
    <dialog
      ref={dialog}
      class="prompt-picker"
      aria-labelledby="picker-title"
      onClose={() => {
        focusAfter?.();
        onClose();
      }}
    >
      <h2 id="picker-title">{t('promptLibrary')}</h2>
      <label>
        {t('searchPrompts')}
        <input
          type="search"
          value={search}
          onInput={(e) => setSearch((e.target as HTMLInputElement).value)}
        />
      </label>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {prompts === null && !error && <p>{t('loading')}</p>}
      {prompts !== null && shown.length === 0 && <p>{t('noPrompts')}</p>}
      <ul class="prompt-choices">
        {shown.map((p) => (
          <li key={p.id}>
            <button
              type="button"
              onClick={() => {
                onChoose(p.text);
                close();
              }}
            >
              {t('insertPrompt', { title: p.title })}
            </button>
            {p.description && <span class="note"> {p.description}</span>}
          </li>
        ))}
      </ul>
      <button type="button" onClick={close}>
        {t('close')}
      </button>
    </dialog>
  );
}
