// The time control of an Agent's history: a moment (date and time in the browser's zone), a few ready moments, and,
// for whoever may read the Agent's audit trail, the moments its settings changed (each a step back in time).
import { useEffect, useState } from 'preact/hooks';
import { api } from '../../api';
import { dateTime, localInputValue } from '../../dates';
import { t } from '../../i18n';

const HOUR = 3_600_000;

interface Change {
  readonly occurredAt: string;
  readonly action: string;
}

/** The Agent's own changes, newest first (null when the person may not read its audit trail). */
function useChanges(agentId: string): readonly Change[] | null {
  const [changes, setChanges] = useState<readonly Change[] | null>(null);
  useEffect(() => {
    void api<{ data: (Change & { resource: { id: string } })[] }>(
      'GET',
      `audit?resourceId=${encodeURIComponent(agentId)}&resourceType=agent&limit=20`,
    ).then(
      (page) => setChanges(page.data),
      () => setChanges(null),
    );
  }, [agentId]);
  return changes;
}

export function AsOfControl({
  agentId,
  asOf,
  onChange,
}: {
  agentId: string;
  asOf: string;
  onChange: (iso: string) => void;
}) {
  const changes = useChanges(agentId);
  const ago = (ms: number) => new Date(Date.now() - ms).toISOString();
  return (
    <section aria-labelledby="as-of-title" class="as-of">
      <h2 id="as-of-title">{t('historyMoment')}</h2>
      <label>
        {t('historyAsOf')}
        <input
          type="datetime-local"
          value={localInputValue(asOf)}
          onChange={(e) => {
            const value = (e.target as HTMLInputElement).value;
            if (value) onChange(new Date(value).toISOString());
          }}
        />
      </label>{' '}
      <button type="button" onClick={() => onChange(ago(HOUR))}>
        {t('historyHourAgo')}
      </button>{' '}
      <button type="button" onClick={() => onChange(ago(24 * HOUR))}>
        {t('historyYesterday')}
      </button>{' '}
      <button type="button" onClick={() => onChange(ago(7 * 24 * HOUR))}>
        {t('historyWeekAgo')}
      </button>
      {changes && changes.length > 0 && (
        <details>
          <summary>{t('historyChanges')}</summary>
          <ul class="history-changes">
            {changes.map((change) => (
              <li key={change.occurredAt + change.action}>
                <button
                  type="button"
                  class="link"
                  onClick={() => onChange(new Date(Date.parse(change.occurredAt) - 1).toISOString())}
                >
                  {t('historyBefore', { when: dateTime(change.occurredAt), what: change.action })}
                </button>
              </li>
            ))}
          </ul>
        </details>
      )}
    </section>
  );
}
