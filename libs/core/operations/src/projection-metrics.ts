// Prometheus gauges of the projections, shared by the api's and the worker's /metrics: lag (events and seconds),
// checkpoint, failing, whether this process holds the projection's lease, and the head of the log.
import { Gauge, type Registry } from 'prom-client';
import type { ProjectionRunner } from '#eventsourcing';
import type { ProjectionHealth } from './projection-health.js';

/** Registers the gauges; the returned function refreshes them (call it before each scrape). */
export function registerProjectionMetrics(
  registry: Registry,
  source: {
    /** The position of the newest event in the log. */
    readonly head: () => Promise<number>;
    readonly runner: ProjectionRunner | null;
    readonly health: () => Promise<ProjectionHealth[]>;
  },
): () => Promise<void> {
  const gauge = (name: string, help: string) =>
    new Gauge({ name, help, labelNames: ['projection'], registers: [registry] });
  const lagEvents = gauge('projection_lag_events', 'Events in the log not yet applied by the projection');
  const lagSeconds = gauge(
    'projection_lag_seconds',
    'Age of the oldest event not yet applied by the projection',
  );
  const checkpoint = gauge('projection_checkpoint', 'Last log position applied by the live generation');
  const failing = gauge('projection_failing', '1 while the projection is failing and retrying');
  const held = gauge('projection_held', '1 while this process holds the projection (its lease)');
  const head = new Gauge({
    name: 'event_log_head_position',
    help: 'Position of the newest event in the log',
    registers: [registry],
  });
  return async () => {
    head.set(await source.head());
    const local = new Map((source.runner?.status() ?? []).map((status) => [status.name, status.state]));
    for (const item of await source.health()) {
      const labels = { projection: item.name };
      lagEvents.set(labels, item.lagEvents);
      lagSeconds.set(labels, item.lagSeconds);
      checkpoint.set(labels, item.checkpoint);
      failing.set(labels, item.state === 'failed' ? 1 : 0);
      const state = local.get(item.name);
      held.set(labels, state && state !== 'standby' && state !== 'starting' && state !== 'stopped' ? 1 : 0);
    }
  };
}
