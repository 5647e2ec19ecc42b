// One's own usage: the weekly window (`GET /cost-control/users/me`: the limit, what the week spent, the overage and
// when the window resets, the time in the person's language and the browser's time zone), and the days of the
// current month (`GET /usage?dimension=user`).
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api';
import { errorSentence } from '../errors';
import { language, t } from '../i18n';
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
interface Amount {
  readonly tokens: number;
  readonly costUsd: number;
}
interface Week {
  readonly limit: { tokens: number | null; costUsd: number | null; overage: 'block' | 'allow' } | null;
  readonly windowStart: string;
  readonly resetsAt: string;
  readonly used: Amount;
  readonly overage: Amount;
}

const usd = (value: number) =>
  new Intl.NumberFormat(language(), {
    style: 'currency',
    currency: 'USD',
    minimumFractionDigits: 2,
    maximumFractionDigits: 4,
  }).format(value);
const count = (value: number) => new Intl.NumberFormat(language()).format(value);
const when = (iso: string) =>
  new Intl.DateTimeFormat(language(), { dateStyle: 'full', timeStyle: 'short' }).format(new Date(iso));
/** "1,234 tokens · $0.50" (only the parts that are set). */
const amount = (tokens: number | null, costUsd: number | null) =>
  [tokens === null ? null : `${count(tokens)} ${t('tokens')}`, costUsd === null ? null : usd(costUsd)]
    .filter(Boolean)
    .join(' · ');

export function Usage({ me }: { me: Me }) {
  const [report, setReport] = useState<Report | null>(null);
  const [week, setWeek] = useState<Week | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    void api<Week>('GET', 'cost-control/users/me').then(setWeek, (e: unknown) => setError(errorSentence(e)));
    void api<Report>('GET', `usage?dimension=user&subject=${encodeURIComponent(me.id)}`).then(
      setReport,
      (e: unknown) => setError(errorSentence(e)),
    );
  }, [me.id]);
  return (
    <section class="page" aria-labelledby="usage-title">
      <h1 id="usage-title">{t('usage')}</h1>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {week && (
        <section class="week" aria-labelledby="week-title">
          <h2 id="week-title">{t('thisWeek')}</h2>
          <dl>
            <dt>{t('weeklyLimit')}</dt>
            <dd class="limit">
              {week.limit ? amount(week.limit.tokens, week.limit.costUsd) : t('noWeeklyLimit')}
            </dd>
            <dt>{t('spent')}</dt>
            <dd class="spent">{amount(week.used.tokens, week.used.costUsd)}</dd>
            {week.limit && (
              <>
                <dt>{t('overage')}</dt>
                <dd class="overage">{amount(week.overage.tokens, week.overage.costUsd)}</dd>
              </>
            )}
          </dl>
          {week.limit && (
            <p class="note">
              {week.limit.overage === 'block' ? t('limitPolicyBlock') : t('limitPolicyAllow')}
            </p>
          )}
          <p class="resets">
            <time dateTime={week.resetsAt}>{t('resetsAt', { time: when(week.resetsAt) })}</time>
          </p>
        </section>
      )}
      {report && (
        <>
          <h2>{t('daysThisMonth')}</h2>
          <table>
            <thead>
              <tr>
                <th scope="col">{t('day')}</th>
                <th scope="col">{t('requests')}</th>
                <th scope="col">{t('tokens')}</th>
                <th scope="col">{t('cost')}</th>
              </tr>
            </thead>
            <tbody>
              {report.days.map((d) => (
                <tr key={d.day}>
                  <td>
                    {new Intl.DateTimeFormat(language(), { dateStyle: 'medium', timeZone: 'UTC' }).format(
                      new Date(d.day),
                    )}
                  </td>
                  <td>{count(d.calls)}</td>
                  <td>{count(d.inputTokens + d.outputTokens)}</td>
                  <td>{usd(d.costUsd)}</td>
                </tr>
              ))}
              <tr>
                <th scope="row">Σ</th>
                <td>{count(report.totals.calls)}</td>
                <td>{count(report.totals.inputTokens + report.totals.outputTokens)}</td>
                <td>{usd(report.totals.costUsd)}</td>
              </tr>
            </tbody>
          </table>
        </>
      )}
    </section>
  );
}
