// A stacked bar chart of usage, covered by the subscription and billable (chart.js, registered with only the parts a
// bar chart needs), in the theme's colours (read from the CSS variables, redrawn when the theme changes), with its
// figures as a table under a <details> for screen readers, axe and anyone who prefers numbers.
import { BarController, BarElement, CategoryScale, Chart, Legend, LinearScale, Tooltip } from 'chart.js';
import { useEffect, useRef, useState } from 'preact/hooks';
import { language, t } from '../../i18n';
import { compact, inMetric, tickUsd, type Metric } from './usage-data';
import { FigureTable } from './usage-kit';

Chart.register(BarController, BarElement, CategoryScale, LinearScale, Legend, Tooltip);

export interface Bars {
  readonly labels: readonly string[];
  readonly included: readonly number[];
  readonly billable: readonly number[];
}

/** The theme of the moment (`data-theme` on <html>), so a chart redraws in the other theme's colours. */
function useTheme(): string {
  const root = document.documentElement;
  const [theme, setTheme] = useState(root.dataset.theme ?? '');
  useEffect(() => {
    const observer = new MutationObserver(() => setTheme(root.dataset.theme ?? ''));
    observer.observe(root, { attributes: true, attributeFilter: ['data-theme'] });
    return () => observer.disconnect();
  }, []);
  return theme;
}

const colour = (name: string) => getComputedStyle(document.documentElement).getPropertyValue(name).trim();

function draw(canvas: HTMLCanvasElement, bars: Bars, metric: Metric, horizontal: boolean): Chart {
  const ink = colour('--ink');
  const line = colour('--line');
  const value = horizontal ? 'x' : 'y';
  return new Chart(canvas, {
    type: 'bar',
    data: {
      labels: [...bars.labels],
      datasets: [
        {
          label: t('usageIncluded'),
          data: [...bars.included],
          backgroundColor: colour('--ok'),
          maxBarThickness: 48,
        },
        {
          label: t('usageBillable'),
          data: [...bars.billable],
          backgroundColor: colour('--accent'),
          maxBarThickness: 48,
        },
      ],
    },
    options: {
      indexAxis: horizontal ? 'y' : 'x',
      responsive: true,
      maintainAspectRatio: false,
      // Drawn once: figures do not need to move, and a test or a slow phone gets the final picture at once.
      animation: false,
      color: ink,
      scales: {
        x: { stacked: true, ticks: { color: ink }, grid: { color: line } },
        y: { stacked: true, ticks: { color: ink }, grid: { color: line } },
        [value]: {
          stacked: true,
          beginAtZero: true,
          // Ticks short (1.2K, $0.01), the unit in the axis title: long labels crowd a phone's axis.
          ticks: {
            color: ink,
            callback: (tick) => (metric === 'tokens' ? compact : tickUsd)(Number(tick)),
          },
          title: { display: true, text: t(metric), color: ink },
          grid: { color: line },
        },
      },
      plugins: {
        legend: { labels: { color: ink } },
        tooltip: {
          callbacks: {
            label: (item) => `${item.dataset.label ?? ''}: ${inMetric(Number(item.raw), metric)}`,
          },
        },
      },
    },
  });
}

export function BarChart({
  title,
  bars,
  metric,
  horizontal = false,
  skipEmpty = false,
  labelHeader,
}: {
  title: string;
  bars: Bars;
  metric: Metric;
  horizontal?: boolean;
  /** The table leaves out the labels without usage (the quiet days of a range). */
  skipEmpty?: boolean;
  labelHeader: string;
}) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const theme = useTheme();
  useEffect(() => {
    const chart = draw(canvas.current!, bars, metric, horizontal);
    return () => chart.destroy();
    // The legend and the ticks are in the page's language: redrawn when it changes.
  }, [bars, metric, horizontal, theme, language()]);
  const sum = (values: readonly number[]) => values.reduce((total, v) => total + v, 0);
  const rows = bars.labels
    .map((label, i) => ({ label, included: bars.included[i]!, billable: bars.billable[i]! }))
    .filter((row) => !skipEmpty || row.included + row.billable > 0);
  const height = horizontal ? `${Math.max(10, 7 + bars.labels.length * 2.5)}rem` : '18rem';
  return (
    <figure class="usage-chart">
      <figcaption>{title}</figcaption>
      <div class="chart-box" style={{ height }}>
        <canvas
          ref={canvas}
          role="img"
          aria-label={t('chartSummary', {
            title,
            included: inMetric(sum(bars.included), metric),
            billable: inMetric(sum(bars.billable), metric),
          })}
        />
      </div>
      <details>
        <summary>{t('chartAsTable')}</summary>
        <FigureTable
          corner={labelHeader}
          columns={[t('usageIncluded'), t('usageBillable'), t('usageTotal')]}
          rows={rows.map((row) => ({
            label: row.label,
            cells: [row.included, row.billable, row.included + row.billable].map((v) => inMetric(v, metric)),
          }))}
          empty={t('noUsageInRange')}
        />
      </details>
    </figure>
  );
}
