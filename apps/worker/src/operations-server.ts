// The worker's listener for operators: GET /health (projection health and this runner's status) and GET /metrics
// (Prometheus: process defaults and projection lag), on plain node:http. Nothing else is served.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import type { Logger } from 'pino';
import type { EventStore } from '../../../libs/event-store/src/event-store.port.js';
import type { ReadStore } from '../../../libs/read-store/src/read-store.port.js';
import type { ProjectionRunner } from '../../../libs/eventsourcing/src/projection-runner.js';
import { projectionHealth, type ProjectionHealth } from '../../../libs/operations/src/projection-health.js';

export interface OperationsServerDeps {
  readonly eventStore: EventStore;
  readonly readStore: ReadStore;
  readonly runner: ProjectionRunner;
  readonly logger: Logger;
}

export function createOperationsServer({
  eventStore,
  readStore,
  runner,
  logger,
}: OperationsServerDeps): Server {
  const names = runner.projectorNames();
  const health = () => projectionHealth(eventStore, readStore, runner, names);

  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const gauge = (name: string, help: string) =>
    new Gauge({ name, help, labelNames: ['projection'], registers: [registry] });
  const lagEvents = gauge('projection_lag_events', 'Events in the log not yet applied by the projection');
  const lagSeconds = gauge(
    'projection_lag_seconds',
    'Age of the oldest event not yet applied by the projection',
  );
  const checkpoint = gauge('projection_checkpoint', 'Last log position applied by the live generation');
  const failing = gauge('projection_failing', '1 while the projection is failing and retrying');
  const held = gauge('projection_held', '1 while this worker holds the projection (its lease)');
  const head = new Gauge({
    name: 'event_log_head_position',
    help: 'Position of the newest event in the log',
    registers: [registry],
  });
  const collect = async () => {
    head.set(await eventStore.headPosition());
    const local = new Map(runner.status().map((status) => [status.name, status.state]));
    for (const item of await health()) {
      const labels = { projection: item.name };
      lagEvents.set(labels, item.lagEvents);
      lagSeconds.set(labels, item.lagSeconds);
      checkpoint.set(labels, item.checkpoint);
      failing.set(labels, item.state === 'failed' ? 1 : 0);
      const state = local.get(item.name);
      held.set(labels, state && state !== 'standby' && state !== 'starting' && state !== 'stopped' ? 1 : 0);
    }
  };

  const send = (response: ServerResponse, status: number, type: string, body: string) => {
    response.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
    response.end(body);
  };
  const json = (response: ServerResponse, status: number, body: unknown) =>
    send(response, status, 'application/json; charset=utf-8', JSON.stringify(body));

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const path = new URL(request.url ?? '/', 'http://worker').pathname;
    if (request.method !== 'GET' && request.method !== 'HEAD')
      return json(response, 405, { error: 'method_not_allowed' });
    if (path === '/health') {
      let projections: ProjectionHealth[] = [];
      let storesReachable = true;
      try {
        projections = await health();
      } catch {
        storesReachable = false;
      }
      const failed = projections.filter((p) => p.state === 'failed').map((p) => p.name);
      return json(response, storesReachable ? 200 : 503, {
        status: !storesReachable ? 'unavailable' : failed.length > 0 ? 'degraded' : 'ok',
        worker: runner.options.owner,
        failing: failed,
        projections,
        runner: runner.status(),
      });
    }
    if (path === '/metrics') {
      await collect().catch((error: unknown) =>
        logger.warn(
          { error: error instanceof Error ? error.message : String(error) },
          'metrics collection failed',
        ),
      );
      return send(response, 200, registry.contentType, await registry.metrics());
    }
    return json(response, 404, { error: 'not_found', routes: ['/health', '/metrics'] });
  };

  return createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      logger.error(
        { error: error instanceof Error ? error.message : String(error) },
        'operations request failed',
      );
      if (!response.headersSent) json(response, 500, { error: 'internal' });
      else response.end();
    });
  });
}

export function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : port);
    });
  });
}

export function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
