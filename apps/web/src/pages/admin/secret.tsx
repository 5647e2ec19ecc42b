// A secret shown once (an invitation or reset link, an API key): the text, a copy button and what to do with it.
import { useState } from 'preact/hooks';
import { t } from '../../i18n';

export function SecretOnce({ label, secret }: { label: string; secret: string }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    await navigator.clipboard.writeText(secret).then(
      () => setCopied(true),
      () => setCopied(false),
    );
  };
  return (
    <div class="secret" role="status">
      <p>{label}</p>
      <code>{secret}</code>
      <button type="button" onClick={() => void copy()}>
        {t('copy')}
      </button>
      {copied && <span class="note"> {t('copied')}</span>}
    </div>
  );
}
