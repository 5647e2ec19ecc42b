// Tracing as every layer uses it: spans through the OpenTelemetry API (whose tracer is a no-op until the SDK is
// started, which happens only when an OTLP endpoint is configured: infrastructure's tracing-sdk.ts), one flag checked
// before any span or attribute is built (a process without tracing pays a branch per call), whether prompts and
// completions may go into spans, the W3C trace context of outgoing requests, and the ids a log line carries.
import {
  context,
  propagation,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Span,
} from '@opentelemetry/api';

export { SpanKind, type Span } from '@opentelemetry/api';

const state = { on: false, captureContent: false };

/** Set once by the SDK when it starts: spans are recorded from then on. */
export function tracingStarted(options: { readonly captureContent: boolean }): void {
  state.on = true;
  state.captureContent = options.captureContent;
}

/** Whether spans are recorded (an OTLP endpoint is configured and the SDK started). */
export const tracingOn = (): boolean => state.on;

/** Whether prompts, completions, tool arguments and results may be put in spans (OTEL_CAPTURE_CONTENT). */
export const capturingContent = (): boolean => state.on && state.captureContent;

const tracer = () => trace.getTracer('agent-platform');

/** A span started as a child of the active one (not made active); null when tracing is off. */
export function startSpan(name: string, kind: SpanKind, attributes: Attributes): Span | null {
  if (!state.on) return null;
  return tracer().startSpan(name, { kind, attributes });
}

/**
 * Runs `work` inside a span that is the active one meanwhile (what it starts, its model calls and requests, are the
 * span's children), ended when `work` settles; a failure marks the span. `root`: a trace of its own, whatever is
 * active. Without tracing, `work` runs as it is.
 */
export function inSpan<T>(
  name: string,
  kind: SpanKind,
  attributes: Attributes,
  work: (span: Span | null) => Promise<T>,
  root = false,
): Promise<T> {
  if (!state.on) return work(null);
  return tracer().startActiveSpan(name, { kind, attributes, root }, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      failSpan(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

/** Runs `work` with `span` as the active span (its children nest under it); as it is without tracing. */
export function withActiveSpan<T>(span: Span | null, work: () => T): T {
  return span ? context.with(trace.setSpan(context.active(), span), work) : work();
}

/** A low-cardinality name of a failure: its code (a platform error's, a system error's) or its class. */
export function errorType(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && code) return code;
  return error instanceof Error ? error.name : 'error';
}

/** Marks the span failed with `error.type` (never the error's message: it may quote a prompt or a key). */
export function failSpan(span: Span | null, error: unknown, type = errorType(error)): void {
  if (!span) return;
  span.setAttribute('error.type', type);
  span.setStatus({ code: SpanStatusCode.ERROR });
}

/** The W3C trace context (`traceparent`, `tracestate`) of the active span for an outgoing request; null without. */
export function traceHeaders(): Record<string, string> | null {
  if (!state.on) return null;
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent ? carrier : null;
}

/** The active span's ids as a log line carries them; undefined without tracing or outside a span. */
export function activeTraceFields(): { trace_id: string; span_id: string } | undefined {
  if (!state.on) return undefined;
  const span = trace.getSpan(context.active());
  if (!span) return undefined;
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}
