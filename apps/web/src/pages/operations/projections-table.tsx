// The instance's health and its projections (GET /health): each read model's state, the log position it has applied,
// how far behind the log it is, a rebuild's progress while one runs, and a button to start one. Read again every two
// seconds.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../../api';
import { errorSentence } from '../../errors';
import { language, t } from '../../i18n';
import { RebuildButton } from './rebuild-button';

interface Projection {
  readonly name: string;
  readonly state: 'starting' | 'standby' | 'catching_up' | 'live' | 'failed' | 'stopped' | 'remote';
  readonly checkpoint: number;
  readonly lagEvents: number;
  readonly lagSeconds: number;
  readonly rebuilding: { readonly generation: number; readonly checkpoint: number } | null;
  readonly lastError: string | null;
}
interface Health {
  readonly status: 'ok' | 'degraded' | 'starting';
  readonly version: string;
  readonly projections: readonly Projection[];
}

const POLL_MS = 2000;
const count = (value: number) => new Intl.NumberFormat(language()).format(value);

export function ProjectionsTable() {
  const [health, setHealth] = useState<Health | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let stopped = false;
    const read = () =>
      void api<Health>('GET', '/health').then(
        (answer) => {
          if (stopped) return;
          setHealth(answer);
          setError(null);
          timer = setTimeout(read, POLL_MS);
        },
        (failure: unknown) => {
          if (stopped) return;
          setError(errorSentence(failure));
          timer = setTimeout(read, POLL_MS);
        },
      );
    let timer = setTimeout(read, 0);
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, []);
  if (!health) return <p>{error ?? t('loading')}</p>;
  const head = Math.max(...health.projections.map((p) => p.checkpoint + p.lagEvents), 0);
  return (
    <section aria-labelledby="projections-title">
      <h2 id="projections-title">{t('opsProjections')}</h2>
      <p>
        {t('opsStatus', {
          status: t(`opsStatus_${health.status}`),
          version: health.version,
          head: count(head),
        })}
      </p>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <table class="projections cards">
        <thead>
          <tr>
            <th scope="col">{t('name')}</th>
            <th scope="col">{t('status')}</th>
            <th scope="col">{t('opsPosition')}</th>
            <th scope="col">{t('opsLag')}</th>
            <th scope="col">{t('opsRebuildColumn')}</th>
          </tr>
        </thead>
        <tbody>
          {health.projections.map((p) => (
            <tr key={p.name} data-projection={p.name}>
              <th scope="row">{p.name}</th>
              <td data-label={t('status')}>
                {t(`opsState_${p.state}`)}
                {p.rebuilding && (
                  <progress
                    max={Math.max(head, 1)}
                    value={p.rebuilding.checkpoint}
                    aria-label={t('opsRebuilding', { name: p.name })}
                  />
                )}
                {p.lastError && <span class="error"> {p.lastError}</span>}
              </td>
              <td data-label={t('opsPosition')}>{count(p.checkpoint)}</td>
              <td data-label={t('opsLag')}>
                {t('opsLagValue', { events: count(p.lagEvents), seconds: count(p.lagSeconds) })}
              </td>
              <td class="rebuild">
                <RebuildButton name={p.name} busy={p.rebuilding !== null} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <p class="note">{t('opsRebuildHow')}</p>
    </section>
  );
}
