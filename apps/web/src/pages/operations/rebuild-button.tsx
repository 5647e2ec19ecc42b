// A projection's Rebuild: asks first (what a rebuild does and that readers keep the live generation meanwhile), then
// requests it (POST /projections/{name}/rebuild, recorded with who asked); the table's live read shows its progress.
import { useState } from 'preact/hooks';
import { api } from '../../api';
import { errorSentence } from '../../errors';
import { t } from '../../i18n';
import { ConfirmDialog } from '../confirm-dialog';

export function RebuildButton({ name, busy }: { name: string; busy: boolean }) {
  const [asking, setAsking] = useState(false);
  const [outcome, setOutcome] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const rebuild = () =>
    void api<{ outcome: 'requested' | 'underWay' }>(
      'POST',
      `projections/${encodeURIComponent(name)}/rebuild`,
      {},
    ).then(
      (answer) => {
        setError(null);
        setOutcome(t(answer.outcome === 'requested' ? 'opsRebuildRequested' : 'opsRebuildUnderWay'));
      },
      (failure: unknown) => setError(errorSentence(failure)),
    );
  return (
    <>
      <button
        type="button"
        disabled={busy}
        aria-label={t('opsRebuild', { name })}
        onClick={() => setAsking(true)}
      >
        {t('opsRebuildConfirm')}
      </button>
      {outcome && !error && <span role="status"> {outcome}</span>}
      {error && (
        <span role="alert" class="error">
          {' '}
          {error}
        </span>
      )}
      {asking && (
        <ConfirmDialog
          title={t('opsRebuildTitle', { name })}
          text={t('opsRebuildText')}
          confirm={t('opsRebuildConfirm')}
          onConfirm={rebuild}
          onClose={() => setAsking(false)}
        />
      )}
    </>
  );
}
