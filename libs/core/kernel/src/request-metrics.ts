// Prometheus counters and histograms for what is counted on every request (HTTP durations, model calls). They
// register in a prom-client Registry and expose exactly what prom-client's Counter and Histogram expose, but find a
// series by a Map lookup per label value: prom-client's own validate, hash and copy a labels object on every
// observation and key a histogram's buckets by their float bound, a few percent of a gateway request's CPU.
import type { Registry, RegistryContentType } from 'prom-client';

export interface RequestMetricConfig<Label extends string> {
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly Label[];
  readonly registers: readonly Registry<RegistryContentType>[];
}

type Labels<Label extends string> = Readonly<Record<Label, string>>;

/** A value prom-client's registry prints: its labels, and a histogram line's series labels besides its `le`. */
interface ValuePair {
  readonly labels: Record<string, string | number>;
  readonly sharedLabels?: Record<string, string>;
  readonly value: number;
  readonly metricName?: string;
  readonly exemplar?: null;
}

abstract class RequestMetric<Label extends string, Series> {
  readonly aggregator = 'sum';
  abstract readonly type: 'counter' | 'histogram';
  /** Every series, in the order they were first used (prom-client's order). */
  protected readonly series: Series[] = [];
  /** A tree of maps, one level a label, its leaves the series: no key to build from the values per observation. */
  private readonly tree = new Map<unknown, unknown>();

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly labelNames: readonly Label[],
  ) {}

  /** The series of these labels, made on first use with a copy of the labels (the caller's object may change). */
  protected seriesOf(labels: Labels<Label>): Series {
    let level = this.tree;
    const last = this.labelNames.length - 1;
    for (let i = 0; i < last; i++) {
      const value = labels[this.labelNames[i]!];
      let next = level.get(value) as Map<unknown, unknown> | undefined;
      if (next === undefined) {
        next = new Map();
        level.set(value, next);
      }
      level = next;
    }
    const leaf = last >= 0 ? labels[this.labelNames[last]!] : undefined;
    let found = level.get(leaf) as Series | undefined;
    if (found === undefined) {
      const own = {} as Record<Label, string>;
      for (const name of this.labelNames) if (labels[name] !== undefined) own[name] = labels[name];
      found = this.newSeries(own);
      level.set(leaf, found);
      this.series.push(found);
    }
    return found;
  }

  protected abstract newSeries(labels: Record<Label, string>): Series;

  reset(): void {
    this.series.length = 0;
    this.tree.clear();
  }
}

interface CounterSeries {
  readonly labels: Record<string, string>;
  value: number;
}

export class RequestCounter<Label extends string> extends RequestMetric<Label, CounterSeries> {
  readonly type = 'counter';

  constructor(config: RequestMetricConfig<Label>) {
    super(config.name, config.help, config.labelNames);
    for (const registry of config.registers) registry.registerMetric(this as never);
  }

  inc(labels: Labels<Label>, value = 1): void {
    if (!Number.isFinite(value)) throw new TypeError(`Value is not a valid number: ${value}`);
    if (value < 0) throw new Error('It is not possible to decrease a counter');
    this.seriesOf(labels).value += value;
  }

  protected newSeries(labels: Record<Label, string>): CounterSeries {
    return { labels, value: 0 };
  }

  get() {
    return {
      help: this.help,
      name: this.name,
      type: this.type,
      values: this.series.map(({ labels, value }) => ({ value, labels })),
      aggregator: this.aggregator,
    };
  }
}

interface HistogramSeries {
  readonly labels: Record<string, string>;
  /** Observations per bucket (not cumulative), in the order of the bounds. */
  readonly counts: number[];
  sum: number;
  count: number;
}

export class RequestHistogram<Label extends string> extends RequestMetric<Label, HistogramSeries> {
  readonly type = 'histogram';
  private readonly bounds: readonly number[];

  constructor(config: RequestMetricConfig<Label> & { readonly buckets: readonly number[] }) {
    super(config.name, config.help, config.labelNames);
    if (config.labelNames.includes('le' as Label)) throw new Error('le is a reserved label keyword');
    this.bounds = [...config.buckets];
    for (const registry of config.registers) registry.registerMetric(this as never);
  }

  observe(labels: Labels<Label>, value: number): void {
    if (!Number.isFinite(value)) throw new TypeError(`Value is not a valid number: ${value}`);
    const series = this.seriesOf(labels);
    // The first bound at or above the value; above the last bound only +Inf (the count) takes it.
    const bounds = this.bounds;
    for (let i = 0; i < bounds.length; i++)
      if (value <= bounds[i]!) {
        series.counts[i]! += 1;
        break;
      }
    series.sum += value;
    series.count += 1;
  }

  protected newSeries(labels: Record<Label, string>): HistogramSeries {
    return { labels, counts: this.bounds.map(() => 0), sum: 0, count: 0 };
  }

  /** The registry's text: each series' cumulative buckets, +Inf, sum and count, its labels after `le`. */
  getForPromString() {
    const values: ValuePair[] = [];
    const bucketName = `${this.name}_bucket`;
    for (const { labels, counts, sum, count } of this.series) {
      let cumulative = 0;
      this.bounds.forEach((bound, i) => {
        cumulative += counts[i]!;
        values.push({
          labels: { le: bound },
          sharedLabels: labels,
          value: cumulative,
          metricName: bucketName,
          exemplar: null,
        });
      });
      values.push(
        {
          labels: { le: '+Inf' },
          sharedLabels: labels,
          value: count,
          metricName: bucketName,
          exemplar: null,
        },
        { labels: {}, sharedLabels: labels, value: sum, metricName: `${this.name}_sum` },
        { labels: {}, sharedLabels: labels, value: count, metricName: `${this.name}_count` },
      );
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  /** As JSON (getMetricsAsJSON): each value's labels with its series' labels merged in. */
  get() {
    const data = this.getForPromString();
    return {
      ...data,
      values: data.values.map(({ sharedLabels, labels, ...rest }) => ({
        ...rest,
        labels: { ...labels, ...sharedLabels },
      })),
    };
  }
}
