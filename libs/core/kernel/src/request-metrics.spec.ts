import { Counter, Histogram, Registry, type RegistryContentType } from 'prom-client';
import { RequestCounter, RequestHistogram } from './request-metrics.js';

const buckets = [0.001, 0.01, 0.1, 1];
const observations: [Record<'route' | 'status', string>, number][] = [
  [{ route: '/a', status: '200' }, 0.0005],
  [{ route: '/a', status: '200' }, 0.05],
  [{ route: '/b', status: '500' }, 3],
  [{ status: '200', route: '/a' }, 0.001],
  [{ route: '/b', status: '500' }, 0.2],
];

function both() {
  const theirs = new Registry<RegistryContentType>();
  const ours = new Registry<RegistryContentType>();
  const config = { name: 'x_seconds', help: 'X "quoted" \\ help', labelNames: ['route', 'status'] as const };
  const counted = { name: 'x_total', help: 'X total', labelNames: ['route', 'status'] as const };
  return {
    theirs,
    ours,
    histograms: [
      new Histogram({
        ...config,
        labelNames: [...config.labelNames],
        buckets,
        registers: [theirs as Registry],
      }),
      new RequestHistogram({ ...config, buckets, registers: [ours] }),
    ] as const,
    counters: [
      new Counter({ ...counted, labelNames: [...counted.labelNames], registers: [theirs as Registry] }),
      new RequestCounter({ ...counted, registers: [ours] }),
    ] as const,
  };
}

describe('request metrics', () => {
  it("expose exactly what prom-client's Counter and Histogram expose for the same observations", async () => {
    const { theirs, ours, histograms, counters } = both();
    for (const [labels, value] of observations) {
      for (const histogram of histograms) histogram.observe(labels, value);
      for (const counter of counters) counter.inc(labels, value * 10);
    }
    expect(await ours.metrics()).toBe(await theirs.metrics());
    expect(await ours.getMetricsAsJSON()).toEqual(await theirs.getMetricsAsJSON());
    ours.setContentType(Registry.OPENMETRICS_CONTENT_TYPE);
    theirs.setContentType(Registry.OPENMETRICS_CONTENT_TYPE);
    expect(await ours.metrics()).toBe(await theirs.metrics());
  });

  it('keep a series apart from a later change of the labels object the caller passed', async () => {
    const { ours, histograms } = both();
    const labels = { route: '/a', status: '200' };
    histograms[1].observe(labels, 0.5);
    labels.route = '/changed';
    expect(await ours.metrics()).toContain('x_seconds_count{route="/a",status="200"} 1');
  });

  it('refuse what prom-client refuses: a value that is not a number, a counter going down', () => {
    const { histograms, counters } = both();
    expect(() => histograms[1].observe({ route: '/a', status: '200' }, Number.NaN)).toThrow(TypeError);
    expect(() => counters[1].inc({ route: '/a', status: '200' }, -1)).toThrow('not possible to decrease');
  });
});
