// The system prompt editor: a large text area with its length, and the Space's prompt library to insert a prompt at
// the cursor (the chat's picker dialog, reused).
import { useRef, useState } from 'preact/hooks';
import { t } from '../../i18n';
import { PromptPicker } from '../prompt-picker';

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
  const area = useRef<HTMLTextAreaElement>(null);
  const [picking, setPicking] = useState(false);
  const insert = (text: string) => {
    const field = area.current;
    const start = field?.selectionStart ?? value.length;
    const end = field?.selectionEnd ?? value.length;
    onChange(value.slice(0, start) + text + value.slice(end));
    requestAnimationFrame(() => {
      field?.focus();
      field?.setSelectionRange(start + text.length, start + text.length);
    });
  };
  return (
    <div class="prompt-editor">
      <label for="system-prompt">{t('systemPrompt')}</label>
      <textarea
        id="system-prompt"
        ref={area}
        rows={12}
        maxLength={LIMIT}
        spellcheck
        readOnly={readOnly}
        value={value}
        aria-describedby="system-prompt-length"
        onInput={(e) => onChange((e.target as HTMLTextAreaElement).value)}
      />
      <p id="system-prompt-length" class="note">
        {t('characters', { count: value.length.toLocaleString(), limit: LIMIT.toLocaleString() })}
      </p>
      {spaceId && !readOnly && (
        <button type="button" onClick={() => setPicking(true)}>
          {t('insertFromLibrary')}
        </button>
      )}
      {picking && spaceId && (
        <PromptPicker spaceId={spaceId} onChoose={insert} onClose={() => setPicking(false)} />
      )}
    </div>
  );
}
