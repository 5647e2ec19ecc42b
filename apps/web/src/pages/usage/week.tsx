// A weekly window as a person reads it: the limit, what the week used (a meter per limit, with its figures in text),
// the overage, what happens at the limit, and when the window resets (the absolute time and how far it is).
import { t } from '../../i18n';
import { fromNow, fullDateTime } from '../../dates';
import { amount, count, tokens, usd, type Week } from './usage-data';

function Meter({
  label,
  used,
  limit,
  show,
}: {
  label: string;
  used: number;
  limit: number;
  show: (value: number) => string;
}) {
  const percent = Math.round((used / limit) * 100);
  return (
    <p class="usage-meter">
      <span>{t('usedOfLimit', { used: show(used), limit: show(limit), percent: count(percent) })}</span>
      <meter
        min={0}
        max={limit}
        low={limit * 0.8}
        high={limit * 0.95}
        optimum={0}
        value={used}
        aria-label={label}
      />
    </p>
  );
}

/** When the window resets: the absolute time (the browser's time zone) and how far it is. */
export function Resets({ at }: { at: string }) {
  return (
    <p class="resets">
      <time dateTime={at}>{t('resetsAt', { time: fullDateTime(at) })}</time>{' '}
      <span class="relative">({fromNow(at)})</span>
    </p>
  );
}

export function WeekWindow({ week, title, level = 2 }: { week: Week; title: string; level?: 2 | 3 }) {
  const Heading = level === 2 ? 'h2' : 'h3';
  const { limit } = week;
  const over = week.overage.tokens > 0 || week.overage.costUsd > 0;
  const reached =
    limit !== null &&
    ((limit.tokens !== null && week.used.tokens >= limit.tokens) ||
      (limit.costUsd !== null && week.used.costUsd >= limit.costUsd));
  return (
    <section class="week" aria-labelledby="week-title">
      <Heading id="week-title">{title}</Heading>
      <dl>
        <dt>{t('weeklyLimit')}</dt>
        <dd class="limit">{limit ? amount(limit.tokens, limit.costUsd) : t('noWeeklyLimit')}</dd>
        <dt>{t('spent')}</dt>
        <dd class="spent">{amount(week.used.tokens, week.used.costUsd)}</dd>
        {limit && (
          <>
            <dt>{t('overage')}</dt>
            <dd class={over ? 'overage over' : 'overage'}>
              {amount(week.overage.tokens, week.overage.costUsd)}
            </dd>
          </>
        )}
      </dl>
      {limit?.tokens != null && (
        <Meter label={t('tokens')} used={week.used.tokens} limit={limit.tokens} show={tokens} />
      )}
      {limit?.costUsd != null && (
        <Meter label={t('cost')} used={week.used.costUsd} limit={limit.costUsd} show={usd} />
      )}
      {reached && (
        <p class="error limit-reached">
          {limit.overage === 'block' ? t('limitReachedBlock') : t('limitReachedAllow')}
        </p>
      )}
      {limit && (
        <p class="note">{limit.overage === 'block' ? t('limitPolicyBlock') : t('limitPolicyAllow')}</p>
      )}
      <Resets at={week.resetsAt} />
    </section>
  );
}
