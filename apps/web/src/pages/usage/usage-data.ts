// What the usage pages read from the API and how they show it: the usage report and its split by model or Agent
// (`GET /usage?dimension=user&by=…`), the weekly window (`GET /cost-control/users/…`, `/cost-control/spaces/…`), the
// ranges a person picks, and numbers and money in the page's language.
import { language, t } from '../../i18n';

export interface Figures {
  readonly calls: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly costUsd: number;
  readonly billableCostUsd: number;
}
/** A day's calls covered by the subscription (`isIncludedUsage`) or billable. */
export interface UsageRecord {
  readonly day: string;
  readonly isIncludedUsage: boolean;
  readonly calls: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly costUsd: number;
}
export interface Part {
  readonly key: string;
  readonly totals: Figures;
  readonly records: readonly UsageRecord[];
}
export interface Report {
  readonly from: string;
  readonly to: string;
  readonly totals: Figures;
  readonly records: readonly UsageRecord[];
  readonly parts?: readonly Part[];
}
export interface Amount {
  readonly tokens: number;
  readonly costUsd: number;
}
export interface SpendLimit {
  readonly tokens: number | null;
  readonly costUsd: number | null;
  readonly overage: 'block' | 'allow';
}
/** A user's or a Space's week: its limit, what it used, the overage and when it resets. */
export interface Week {
  readonly limit: SpendLimit | null;
  readonly windowStart: string;
  readonly resetsAt: string;
  readonly used: Amount;
  readonly overage: Amount;
}

export type Metric = 'tokens' | 'cost';
export type Range = 'week' | 'days30' | 'month';
export const RANGES: readonly Range[] = ['week', 'days30', 'month'];

const DAY_MS = 86_400_000;
const utcDay = (time: number) => new Date(time).toISOString().slice(0, 10);

/** The UTC days a range covers up to today: the person's week (from its start), the last 30 days, this month. */
export function rangeDays(
  range: Range,
  windowStart: string | null,
  now = Date.now(),
): { from: string; to: string } {
  const to = utcDay(now);
  if (range === 'month') return { from: `${to.slice(0, 7)}-01`, to };
  if (range === 'week' && windowStart) return { from: utcDay(Date.parse(windowStart)), to };
  return { from: utcDay(now - 29 * DAY_MS), to };
}

/** Every day from `from` to `to`, so a chart's axis shows the quiet days too. */
export function daysOf({ from, to }: { from: string; to: string }): string[] {
  const days: string[] = [];
  for (let time = Date.parse(`${from}T00:00:00Z`); time <= Date.parse(`${to}T00:00:00Z`); time += DAY_MS)
    days.push(utcDay(time));
  return days;
}

/** A record's value in the metric: its tokens (input and output), or its cost. */
export const valueOf = (record: UsageRecord, metric: Metric): number =>
  metric === 'tokens' ? record.inputTokens + record.outputTokens : record.costUsd;

/** What records add up to, covered and billable apart. */
export function split(
  records: readonly UsageRecord[],
  metric: Metric,
): { included: number; billable: number } {
  let included = 0;
  let billable = 0;
  for (const record of records)
    if (record.isIncludedUsage) included += valueOf(record, metric);
    else billable += valueOf(record, metric);
  return { included, billable };
}

export const usd = (value: number) =>
  new Intl.NumberFormat(language(), {
    style: 'currency',
    currency: 'USD',
    minimumFractionDigits: 2,
    maximumFractionDigits: 4,
  }).format(value);
/** An axis tick in USD: two significant digits, so that ticks of a few hundredths of a cent stay apart. */
export const tickUsd = (value: number) =>
  new Intl.NumberFormat(language(), {
    style: 'currency',
    currency: 'USD',
    maximumSignificantDigits: 2,
  }).format(value);
export const count = (value: number) => new Intl.NumberFormat(language()).format(value);
export const compact = (value: number) =>
  new Intl.NumberFormat(language(), { notation: 'compact' }).format(value);
export const tokens = (value: number) =>
  t(new Intl.PluralRules(language()).select(value) === 'one' ? 'tokenCount_one' : 'tokenCount_other', {
    count: count(value),
  });
export const inMetric = (value: number, metric: Metric) => (metric === 'tokens' ? tokens(value) : usd(value));
/** "1,234 tokens · $0.50": the parts of a limit or an amount that are set. */
export const amount = (tokenCount: number | null, costUsd: number | null) =>
  [tokenCount === null ? null : tokens(tokenCount), costUsd === null ? null : usd(costUsd)]
    .filter(Boolean)
    .join(' · ');
