// The OpenTelemetry SDK of a process whose configuration names an OTLP endpoint: a tracer provider with the service's
// resource, spans batched and exported by OTLP/HTTP (JSON), the W3C trace context propagator, and an
// AsyncLocalStorage context manager (what an await started inside a span runs in). Its packages are imported here, on
// start, and nowhere else: a process without an endpoint never loads them (test/opentelemetry.e2e.spec.ts).
import { AsyncLocalStorage } from 'node:async_hooks';
import {
  context,
  propagation,
  ROOT_CONTEXT,
  trace,
  type Context,
  type ContextManager,
} from '@opentelemetry/api';
import { tracingStarted, type PlatformConfig } from '#kernel';

/** The running SDK: `shutdown` exports what is still batched, then stops (bounded by the exporter's timeout). */
export interface TracingSdk {
  shutdown(): Promise<void>;
}

/**
 * The active context kept in an AsyncLocalStorage, as @opentelemetry/context-async-hooks's manager of that name does
 * (not installed: its ~100 lines are this). `bind` covers functions; nothing here binds event emitters.
 */
class AsyncLocalStorageContextManager implements ContextManager {
  private readonly storage = new AsyncLocalStorage<Context>();

  active(): Context {
    return this.storage.getStore() ?? ROOT_CONTEXT;
  }

  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    active: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    const bound = thisArg === undefined ? fn : fn.bind(thisArg);
    return this.storage.run(active, bound as never, ...args) as ReturnType<F>;
  }

  bind<T>(active: Context, target: T): T {
    if (typeof target !== 'function') return target;
    const run = (self: unknown, args: unknown[]) =>
      this.with(active, () => (target as (...a: unknown[]) => unknown).apply(self, args));
    return function (this: unknown, ...args: unknown[]) {
      return run(this, args);
    } as T;
  }

  enable(): this {
    return this;
  }

  disable(): this {
    this.storage.disable();
    return this;
  }
}

/** Starts tracing when an endpoint is configured; null (and nothing loaded) otherwise. */
export async function startTracing(
  config: Pick<PlatformConfig, 'tracing'>,
  serviceVersion?: string,
): Promise<TracingSdk | null> {
  const { endpoint, headers, serviceName, captureContent } = config.tracing;
  if (!endpoint) return null;
  const [{ BatchSpanProcessor, TracerProvider }, { OTLPTraceExporter }, { resourceFromAttributes }, core] =
    await Promise.all([
      import('@opentelemetry/sdk-trace'),
      import('@opentelemetry/exporter-trace-otlp-http'),
      import('@opentelemetry/resources'),
      import('@opentelemetry/core'),
    ]);
  const exporter = new OTLPTraceExporter({
    url: endpoint,
    // Parsed as the exporter parses OTEL_EXPORTER_OTLP_HEADERS (`key=value,…`, values URL-encoded).
    ...(headers ? { headers: core.parseKeyPairsIntoRecord(headers) } : {}),
  });
  const provider = new TracerProvider({
    resource: resourceFromAttributes({
      'service.name': serviceName,
      ...(serviceVersion ? { 'service.version': serviceVersion } : {}),
    }),
    spanProcessors: [new BatchSpanProcessor({ exporter, scheduledDelayMillis: 1000 })],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager());
  propagation.setGlobalPropagator(new core.W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  tracingStarted({ captureContent });
  return { shutdown: () => provider.shutdown() };
}
