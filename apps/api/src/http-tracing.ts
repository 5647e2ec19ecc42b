// Server spans of the routes that call models: one per request on the compatible gateway and the core LLM endpoints
// (`POST /api/compat/v1/chat/completions`), continuing the client's `traceparent` when it sends one, active while the
// request is handled (its model attempts, a turn's steps and the upstream requests nest under it) and ended when the
// response is sent. Registered only when tracing has started: without it, no hook runs.
import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
  type Span,
} from '@opentelemetry/api';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/** The compatible gateway, the core LLM endpoints and the bridge's: the routes whose requests call models. */
const TRACED_ROUTES = /^\/api\/(?:compat\/|v1\/core\/llm\/|v1\/bridge\/agents\/[^/]+\/llm)/;

interface TracedRequest {
  readonly span: Span;
  readonly context: Context;
}

export function traceHttp(fastify: FastifyInstance): void {
  const tracer = trace.getTracer('agent-platform');
  const traced = new WeakMap<FastifyRequest, TracedRequest>();
  // Callback-style hooks: `done` is called inside the span's context, so what Fastify and Nest run next, and every
  // promise they start, runs in it.
  fastify.addHook('onRequest', (request, _reply, done) => {
    const route = request.routeOptions.url;
    if (!route || !TRACED_ROUTES.test(route)) return done();
    const parent = propagation.extract(ROOT_CONTEXT, request.headers);
    const span = tracer.startSpan(
      `${request.method} ${route}`,
      {
        kind: SpanKind.SERVER,
        attributes: {
          'http.request.method': request.method,
          'http.route': route,
          'url.path': request.url.split('?', 1)[0],
          'url.scheme': request.protocol,
        },
      },
      parent,
    );
    const active = trace.setSpan(parent, span);
    traced.set(request, { span, context: active });
    context.with(active, done);
  });
  // The body is read from the socket's callbacks, outside the span's context: the handler is entered in it again.
  fastify.addHook('preValidation', (request, _reply, done) => {
    const entry = traced.get(request);
    if (!entry) return done();
    context.with(entry.context, done);
  });
  fastify.addHook('onResponse', (request, reply, done) => {
    const entry = traced.get(request);
    if (!entry) return done();
    entry.span.setAttribute('http.response.status_code', reply.statusCode);
    if (reply.statusCode >= 500) {
      entry.span.setAttribute('error.type', String(reply.statusCode));
      entry.span.setStatus({ code: SpanStatusCode.ERROR });
    }
    entry.span.end();
    // The request's log line (the next hook) is written inside the span: it carries its trace_id and span_id.
    context.with(entry.context, done);
  });
}
