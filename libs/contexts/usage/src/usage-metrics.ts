// Prometheus metrics of model calls, fed by the usage recorder: calls by model, surface, operation and outcome;
// tokens by direction; cost; call duration; and the calls still waiting for their batch append.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { UsageRecorder } from './usage-recorder.js';

export function registerUsageMetrics(registry: Registry, recorder: UsageRecorder): void {
  const calls = new Counter({
    name: 'model_calls_total',
    help: 'Model calls by model, surface (compat, compat-responses, compat-messages or core), operation and outcome',
    labelNames: ['model', 'surface', 'operation', 'outcome'],
    registers: [registry],
  });
  const tokens = new Counter({
    name: 'model_tokens_total',
    help: 'Tokens of model calls by direction (input includes cached reads; cached_input is that part)',
    labelNames: ['model', 'direction'],
    registers: [registry],
  });
  const cost = new Counter({
    name: 'model_cost_usd_total',
    help: 'Cost of model calls in USD (included usage counted too)',
    labelNames: ['model'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'model_call_duration_seconds',
    help: 'Model call duration, from admission to the last byte',
    labelNames: ['model', 'operation', 'streamed'],
    buckets: [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
    registers: [registry],
  });
  new Gauge({
    name: 'usage_records_queued',
    help: 'Recorded calls not yet appended to the log',
    registers: [registry],
    collect() {
      this.set(recorder.queued);
    },
  });
  recorder.onRecorded((call) => {
    calls.inc({ model: call.model, surface: call.surface, operation: call.operation, outcome: call.outcome });
    tokens.inc({ model: call.model, direction: 'input' }, call.inputTokens);
    tokens.inc({ model: call.model, direction: 'cached_input' }, call.cachedInputTokens);
    tokens.inc({ model: call.model, direction: 'output' }, call.outputTokens);
    cost.inc({ model: call.model }, call.costUsd);
    duration.observe(
      { model: call.model, operation: call.operation, streamed: String(call.streamed) },
      call.latencyMs / 1000,
    );
  });
}
