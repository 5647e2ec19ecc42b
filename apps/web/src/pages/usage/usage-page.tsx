// `/usage`: one's own usage. The weekly window (its limit, what it used, the overage, when it resets), the chosen
// range's usage by day, model and Agent, covered by the subscription and billable; for admins, the limits of people,
// API keys and Spaces (usage-limits.tsx), here beside the figures they limit rather than on the admin page.
import { useCallback, useEffect, useState } from 'preact/hooks';
import { api } from '../../api';
import { errorSentence } from '../../errors';
import { t, type Label } from '../../i18n';
import type { Agent, List, Me } from '../../state';
import { lazy } from '../../lazy';
import { Choices } from './usage-kit';
import { IncludedBillable, UsageCharts } from './usage-charts';
import { RANGES, rangeDays, type Range, type Report, type Week } from './usage-data';
import { WeekWindow } from './week';

// The admins' part is a chunk of its own: a person who is no admin never loads it.
const UsageLimits = lazy(() => import('./usage-limits'), 'UsageLimits');

const RANGE_LABELS: Record<Range, Label> = { week: 'rangeWeek', days30: 'rangeDays30', month: 'rangeMonth' };

function useUsage(range: Range, windowStart: string | null, ready: boolean) {
  const [reports, setReports] = useState<{ models: Report; agents: Report } | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    if (!ready) return;
    const { from, to } = rangeDays(range, windowStart);
    const ask = (by: 'model' | 'agent') =>
      api<Report>('GET', `usage?dimension=user&by=${by}&from=${from}&to=${to}`);
    Promise.all([ask('model'), ask('agent')]).then(
      ([models, agents]) => setReports({ models, agents }),
      setError,
    );
  }, [range, windowStart, ready]);
  return { reports, error };
}

export function Usage({ me }: { me: Me }) {
  const [week, setWeek] = useState<Week | null>(null);
  const [weekError, setWeekError] = useState<unknown>(null);
  const [agents, setAgents] = useState<Agent[]>([]);
  const [range, setRange] = useState<Range>('days30');
  const loadWeek = () => void api<Week>('GET', 'cost-control/users/me').then(setWeek, setWeekError);
  useEffect(() => {
    loadWeek();
    void api<List<Agent>>('GET', 'agents?limit=200').then(
      (list) => setAgents(list.data),
      () => undefined,
    );
  }, [me.id]);
  const { reports, error } = useUsage(range, week?.windowStart ?? null, week !== null || weekError !== null);
  const agentName = useCallback(
    (id: string) => agents.find((agent) => agent.id === id)?.name ?? t('unknownAgent', { id }),
    [agents],
  );
  return (
    <section class="page usage" aria-labelledby="usage-title">
      <h1 id="usage-title">{t('usage')}</h1>
      {weekError !== null && (
        <p role="alert" class="error">
          {errorSentence(weekError)}
        </p>
      )}
      {week && <WeekWindow week={week} title={t('thisWeek')} />}
      <Choices
        legend={t('usageRange')}
        name="range"
        options={RANGES.map((r) => ({ value: r, label: t(RANGE_LABELS[r]) }))}
        value={range}
        onChange={setRange}
      />
      {error !== null && (
        <p role="alert" class="error">
          {errorSentence(error)}
        </p>
      )}
      {reports && reports.models.records.length === 0 && <p class="note">{t('noUsageInRange')}</p>}
      {reports && reports.models.records.length > 0 && (
        <>
          <IncludedBillable report={reports.models} />
          <UsageCharts
            report={reports.models}
            models={reports.models.parts ?? []}
            agents={reports.agents.parts ?? []}
            agentName={agentName}
          />
        </>
      )}
      {me.role === 'admin' && <UsageLimits onChanged={loadWeek} />}
    </section>
  );
}
