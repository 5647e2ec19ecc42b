// One's usage over the chosen range as charts: by day (covered and billable stacked), by model and by Agent (named,
// not by id), in tokens or cost; and the range's totals, covered by the subscription and billable.
import { useMemo, useState } from 'preact/hooks';
import { utcDayAndMonth } from '../../dates';
import { language, t } from '../../i18n';
import { BarChart, type Bars } from './bar-chart';
import { Choices, FigureTable } from './usage-kit';
import {
  count,
  daysOf,
  split,
  tokens,
  usd,
  valueOf,
  type Metric,
  type Part,
  type Report,
} from './usage-data';

function byDay(report: Report, metric: Metric): Bars {
  const days = daysOf(report);
  const at = new Map(days.map((day, i) => [day, i]));
  const included = days.map(() => 0);
  const billable = days.map(() => 0);
  for (const record of report.records) {
    const i = at.get(record.day);
    if (i === undefined) continue;
    (record.isIncludedUsage ? included : billable)[i] += valueOf(record, metric);
  }
  return { labels: days.map(utcDayAndMonth), included, billable };
}

function byPart(parts: readonly Part[], metric: Metric, name: (key: string) => string): Bars {
  const sums = parts.map((part) => split(part.records, metric));
  return {
    labels: parts.map((part) => name(part.key)),
    included: sums.map((sum) => sum.included),
    billable: sums.map((sum) => sum.billable),
  };
}

/** The range's calls, tokens and cost, covered by the subscription and billable. */
export function IncludedBillable({ report }: { report: Report }) {
  const calls = (included: boolean) =>
    report.records.filter((r) => r.isIncludedUsage === included).reduce((n, r) => n + r.calls, 0);
  const rows = [
    {
      label: t('usageIncluded'),
      tokens: split(report.records, 'tokens').included,
      cost: split(report.records, 'cost').included,
      calls: calls(true),
    },
    {
      label: t('usageBillable'),
      tokens: split(report.records, 'tokens').billable,
      cost: split(report.records, 'cost').billable,
      calls: calls(false),
    },
  ];
  return (
    <section aria-labelledby="split-title" class="included-billable">
      <h2 id="split-title">{t('includedVsBillable')}</h2>
      <p class="note">{t('includedExplained')}</p>
      <FigureTable
        corner={t('kindOfUsage')}
        hiddenCorner
        columns={[t('requests'), t('tokens'), t('cost')]}
        rows={rows.map((row) => ({
          label: row.label,
          cells: [count(row.calls), tokens(row.tokens), usd(row.cost)],
        }))}
      />
    </section>
  );
}

export function UsageCharts({
  report,
  models,
  agents,
  agentName,
}: {
  report: Report;
  models: readonly Part[];
  agents: readonly Part[];
  agentName: (id: string) => string;
}) {
  const [metric, setMetric] = useState<Metric>('tokens');
  // The labels (days, numbers) are in the page's language: a change of language redraws them.
  const lang = language();
  const days = useMemo(() => byDay(report, metric), [report, metric, lang]);
  const byModel = useMemo(() => byPart(models, metric, (key) => key), [models, metric, lang]);
  const byAgent = useMemo(() => byPart(agents, metric, agentName), [agents, metric, agentName, lang]);
  return (
    <section aria-labelledby="charts-title" class="usage-charts">
      <h2 id="charts-title">{t('usageCharts')}</h2>
      <Choices
        legend={t('showIn')}
        name="metric"
        options={(['tokens', 'cost'] as const).map((m) => ({ value: m, label: t(m) }))}
        value={metric}
        onChange={setMetric}
      />
      <BarChart title={t('usageByDay')} bars={days} metric={metric} skipEmpty labelHeader={t('day')} />
      <div class="chart-pair">
        <BarChart
          title={t('usageByModel')}
          bars={byModel}
          metric={metric}
          horizontal
          labelHeader={t('model')}
        />
        <BarChart
          title={t('usageByAgent')}
          bars={byAgent}
          metric={metric}
          horizontal
          labelHeader={t('usageAgent')}
        />
      </div>
    </section>
  );
}
