// The system prompt's field: the CodeMirror editor (prompt-codemirror.ts, loaded with this page only) with its length,
// and the Space's prompt library to insert a prompt at the cursor (the chat's picker dialog, reused). Who may not
// manage the Agent reads the prompt in the same editor, read-only.
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { errorSentence } from '../../errors';
import { language, t } from '../../i18n';
import { PromptPicker } from '../prompt-picker';
import type { PromptEditorHandle } from './prompt-codemirror';

const LIMIT = 100_000;

export function SystemPromptEditor({
  value,
  spaceId,
  readOnly,
  onChange,
}: {
  value: string;
  spaceId: string | null;
  readOnly: boolean;
  onChange: (value: string) => void;
}) {
  const host = useRef<HTMLDivElement>(null);
  const editor = useRef<PromptEditorHandle | null>(null);
  const changed = useRef(onChange);
  changed.current = onChange;
  /** The text the editor last reported: a `value` that differs from it comes from outside (a save, a reset). */
  const reported = useRef(value);
  const [failed, setFailed] = useState<string | null>(null);
  const [picking, setPicking] = useState(false);
  const label = t('systemPrompt');
  const german = language() === 'de';

  useEffect(() => {
    let gone = false;
    import('./prompt-codemirror').then(
      ({ mountPromptEditor }) => {
        if (gone || !host.current) return;
        editor.current = mountPromptEditor(host.current, {
          value: reported.current,
          label,
          readOnly,
          german,
          limit: LIMIT,
          onChange: (text) => {
            reported.current = text;
            changed.current(text);
          },
        });
      },
      (error: unknown) => setFailed(errorSentence(error)),
    );
    return () => {
      gone = true;
      editor.current?.destroy();
      editor.current = null;
    };
  }, []);
  useEffect(() => editor.current?.configure({ label, readOnly, german }), [label, readOnly, german]);
  // At once after the render (a layout effect), before the next key: a value the editor reported is never put back
  // over newer typing.
  useLayoutEffect(() => {
    if (value !== reported.current) editor.current?.setValue(value);
    reported.current = value;
  }, [value]);

  return (
    <div class="prompt-editor">
      {/* The editor's content carries the name itself (a label's `for` does not reach into its shadow root). */}
      <p class="field-label" aria-hidden="true" onClick={() => editor.current?.focus()}>
        {label}
      </p>
      <div ref={host} class="code-editor" />
      {failed && (
        <p role="alert" class="error">
          {failed}
        </p>
      )}
      <p id="system-prompt-length" class="note">
        {t('characters', { count: value.length.toLocaleString(), limit: LIMIT.toLocaleString() })}
      </p>
      {spaceId && !readOnly && (
        <button type="button" onClick={() => setPicking(true)}>
          {t('insertFromLibrary')}
        </button>
      )}
      {picking && spaceId && (
        <PromptPicker
          spaceId={spaceId}
          onChoose={(text) => editor.current?.insert(text)}
          onClose={() => setPicking(false)}
          focusAfter={() => editor.current?.focus()}
        />
      )}
    </div>
  );
}
