// A secret the API answers once (an App's bearer token): shown with a copy button until the person dismisses it.
import { useState } from 'preact/hooks';
import { t } from '../../i18n';

export function SecretOnce({ label, secret, onDone }: { label: string; secret: string; onDone: () => void }) {
  const [copied, setCopied] = useState<string | null>(null);
  const copy = () =>
    void navigator.clipboard.writeText(secret).then(
      () => setCopied(t('secretCopied')),
      () => setCopied(t('copyFailed')),
    );
  return (
    <div class="secret-once" role="status">
      <p>{label}</p>
      <code>{secret}</code>{' '}
      <button type="button" onClick={copy}>
        {t('secretCopy')}
      </button>{' '}
      <button type="button" onClick={onDone}>
        {t('secretDone')}
      </button>
      {copied && <p class="note">{copied}</p>}
    </div>
  );
}
