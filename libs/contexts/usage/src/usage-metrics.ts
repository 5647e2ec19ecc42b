// Prometheus metrics of model calls, fed by the usage recorder: calls by model, surface, operation and outcome;
// tokens by direction; cost; call duration; the calls still waiting for their batch append; and per deployment (a
// model's `<key>/<name>`, or the model key of a model served by one upstream) each try's latency and outcome, errors
// by kind, time to first token and tokens. Counted per call: the request metrics (#kernel), not prom-client's own.
import { Gauge, type Registry } from 'prom-client';
import { RequestCounter, RequestHistogram } from '#kernel';
import type { UsageRecorder } from './usage-recorder.js';
import type { ModelCall } from './usage.events.js';

export function registerUsageMetrics(registry: Registry, recorder: UsageRecorder): void {
  const calls = new RequestCounter({
    name: 'model_calls_total',
    help: 'Model calls by model, surface (compat, compat-responses, compat-messages or core), operation and outcome',
    labelNames: ['model', 'surface', 'operation', 'outcome'],
    registers: [registry],
  });
  const tokens = new RequestCounter({
    name: 'model_tokens_total',
    help: 'Tokens of model calls by direction (input includes cached reads; cached_input is that part)',
    labelNames: ['model', 'direction'],
    registers: [registry],
  });
  const cost = new RequestCounter({
    name: 'model_cost_usd_total',
    help: 'Cost of model calls in USD (included usage counted too)',
    labelNames: ['model'],
    registers: [registry],
  });
  const duration = new RequestHistogram({
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
  const deployments = deploymentMetrics(registry);
  recorder.onRecorded((call) => {
    deployments(call);
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

const LATENCY_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60, 120];

/** Per-deployment metrics of a recorded call: every try of a routed call, or the call itself as one try. */
function deploymentMetrics(registry: Registry): (call: ModelCall) => void {
  const tries = new RequestHistogram({
    name: 'model_deployment_latency_seconds',
    help: 'Latency of each try of a model deployment (to the whole answer, or to the first piece of a stream), by outcome',
    labelNames: ['deployment', 'outcome'],
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const errors = new RequestCounter({
    name: 'model_deployment_errors_total',
    help:
      'Failed tries by deployment and kind (rate_limit, overloaded, context_length, bad_request, auth, timeout, ' +
      'unreachable, or the upstream status)',
    labelNames: ['deployment', 'kind'],
    registers: [registry],
  });
  const firstToken = new RequestHistogram({
    name: 'model_deployment_first_token_seconds',
    help: 'Time to first token of streamed calls, by the deployment that served them',
    labelNames: ['deployment'],
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const tokens = new RequestCounter({
    name: 'model_deployment_tokens_total',
    help: 'Tokens by the deployment that served them and direction (input, cached_input, cache_write, output)',
    labelNames: ['deployment', 'direction'],
    registers: [registry],
  });
  return (call) => {
    const attempts: NonNullable<ModelCall['attempts']> = call.attempts ?? [
      {
        deployment: call.model,
        model: call.model,
        outcome: call.outcome === 'completed' ? 'completed' : 'failed',
        ...(call.failure ? { reason: call.failure } : {}),
        latencyMs: call.latencyMs,
      },
    ];
    for (const attempt of attempts) {
      // The client went away: the last try did not fail, it was stopped.
      if (call.outcome === 'aborted' && attempt === attempts.at(-1)) continue;
      tries.observe({ deployment: attempt.deployment, outcome: attempt.outcome }, attempt.latencyMs / 1000);
      if (attempt.outcome === 'failed')
        errors.inc({ deployment: attempt.deployment, kind: attempt.reason ?? attempt.error ?? 'error' });
    }
    const served = attempts.findLast((attempt) => attempt.outcome === 'completed')?.deployment;
    if (!served) return;
    if (call.firstTokenMs !== undefined) firstToken.observe({ deployment: served }, call.firstTokenMs / 1000);
    tokens.inc({ deployment: served, direction: 'input' }, call.inputTokens);
    tokens.inc({ deployment: served, direction: 'cached_input' }, call.cachedInputTokens);
    if (call.cacheWriteTokens)
      tokens.inc({ deployment: served, direction: 'cache_write' }, call.cacheWriteTokens);
    tokens.inc({ deployment: served, direction: 'output' }, call.outputTokens);
  };
}
