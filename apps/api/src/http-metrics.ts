// Request metrics: one histogram of durations by method, route pattern and status (never the raw URL: ids would
// explode the label set).
import type { FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';
import { RequestHistogram } from '#kernel';

export const HTTP_METRICS = Symbol('HTTP_METRICS');

export function instrumentHttp(fastify: FastifyInstance, registry: Registry): void {
  const duration = new RequestHistogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration by method, route and status',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  // Callback-style hooks: an async hook costs a promise per request on every route.
  fastify.addHook('onResponse', (request, reply, done) => {
    duration.observe(
      {
        method: request.method,
        route: request.routeOptions.url ?? 'unmatched',
        status: String(reply.statusCode),
      },
      reply.elapsedTime / 1000,
    );
    done();
  });
}
