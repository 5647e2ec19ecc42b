// One's own usage: the totals and the days of the current month.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api';
import { t } from '../i18n';
import type { Me } from '../state';

interface Figures {
  readonly calls: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly costUsd: number;
}
interface Report {
  readonly totals: Figures;
  readonly days: (Figures & { day: string })[];
}

export function Usage({ me }: { me: Me }) {
  const [report, setReport] = useState<Report | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(
    () =>
      void api<Report>('GET', `usage?dimension=user&subject=${encodeURIComponent(me.id)}`).then(
        setReport,
        (e: Error) => setError(e.message),
      ),
    [me.id],
  );
  return (
    <section class="page" aria-labelledby="usage-title">
      <h1 id="usage-title">{t('usage')}</h1>
      {error && <p class="error">{error}</p>}
      {report && (
        <table>
          <thead>
            <tr>
              <th scope="col">Day</th>
              <th scope="col">{t('requests')}</th>
              <th scope="col">{t('tokens')}</th>
              <th scope="col">{t('cost')}</th>
            </tr>
          </thead>
          <tbody>
            {report.days.map((d) => (
              <tr key={d.day}>
                <td>{d.day}</td>
                <td>{d.calls}</td>
                <td>{d.inputTokens + d.outputTokens}</td>
                <td>${d.costUsd.toFixed(4)}</td>
              </tr>
            ))}
            <tr>
              <th scope="row">Σ</th>
              <td>{report.totals.calls}</td>
              <td>{report.totals.inputTokens + report.totals.outputTokens}</td>
              <td>${report.totals.costUsd.toFixed(4)}</td>
            </tr>
          </tbody>
        </table>
      )}
    </section>
  );
}
