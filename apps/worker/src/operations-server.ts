// The worker's listener for operators: GET /health (projection health and this runner's status) and GET /metrics
// (Prometheus: process defaults and projection lag), on plain node:http. Nothing else is served.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { collectDefaultMetrics, Registry } from 'prom-client';
import type { Logger } from 'pino';
import type { EventStore } from '#event-store';
import type { ReadStore } from '#read-store';
import type { ProjectionRunner } from '#eventsourcing';
import { errorBody } from '#http';
import { registerProjectionMetrics, projectionHealth, type ProjectionHealth } from '#operations';

export interface OperationsServerDeps {
  readonly eventStore: EventStore;
  readonly readStore: ReadStore;
  readonly runner: ProjectionRunner;
  readonly logger: Logger;
  /** More of this process's state for /health (what its Knowledge workers do). */
  readonly status?: () => Record<string, unknown>;
}

export function createOperationsServer({
  eventStore,
  readStore,
  runner,
  logger,
  status = () => ({}),
}: OperationsServerDeps): Server {
  const names = runner.projectorNames();
  const health = () => projectionHealth(eventStore, readStore, runner, names);

  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const collect = registerProjectionMetrics(registry, {
    head: () => eventStore.headPosition(),
    runner,
    health,
  });

  const send = (response: ServerResponse, status: number, type: string, body: string) => {
    response.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
    response.end(body);
  };
  const json = (response: ServerResponse, status: number, body: unknown) =>
    send(response, status, 'application/json; charset=utf-8', JSON.stringify(body));

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const path = new URL(request.url ?? '/', 'http://worker').pathname;
    if (request.method !== 'GET' && request.method !== 'HEAD')
      return json(response, 405, errorBody(405, 'method_not_allowed', 'only GET and HEAD'));
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
        ...status(),
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
    return json(
      response,
      404,
      errorBody(404, 'route_not_found', 'the worker serves GET /health and GET /metrics'),
    );
  };

  return createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      logger.error(
        { error: error instanceof Error ? error.message : String(error) },
        'operations request failed',
      );
      if (!response.headersSent)
        json(response, 500, errorBody(500, 'internal_error', 'internal error; it has been logged'));
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
