// Many people at once: `users` streamed conversation turns in flight together through the api, each a new
// conversation of the bench Agent (its Knowledge searched), against a paced upstream (PACED_UPSTREAM: 50 ms to the
// first token, then 300 tokens 50 ms apart, 20 tokens a second: 15 s a turn). The turns start evenly spread over
// one turn's length, so that all of them are in flight by the time the first ends (the peak is measured), as people
// arriving one after another do, rather than 200 retrievals queued at one instant. Measured: every turn completes
// (its `done` event), no error, the first delta's p99 against its p50, and the api's RSS growth (sampled every
// 250 ms, peak over the RSS before the first turn). Run by the conversations bench on its api at 10k chunks.
import { Agent, request } from 'node:http';
import { memoryOf } from './api-startup.js';
import { log, median, type MetricRow } from './util.js';

/** The fake upstream's options for the paced model: 50 ms to first token, 20 tokens/s, 300 tokens. */
export const PACED_TOKENS = 300;
export const PACED_UPSTREAM = {
  latencyMs: 50,
  chunkDelayMs: 50,
  streamChunks: PACED_TOKENS,
  // 300 words (one token each as the fake streams them), citing two sources as the turn's answers do.
  reply: Array.from({ length: PACED_TOKENS }, (_, i) =>
    i === 10 ? '[1]' : i === 200 ? '[2]' : `word${i % 50}`,
  ).join(' '),
} as const;

export interface ConcurrentTurnsOptions {
  readonly port: number;
  readonly agentId: string;
  readonly apiPid: number;
  /** The models.yaml key routed to the paced upstream. */
  readonly model: string;
  readonly users: number;
  /** The spread of the turns' starts, ms (one turn's length: 15 s). */
  readonly rampMs: number;
  readonly questions: readonly string[];
  readonly headers: Readonly<Record<string, string>>;
}

export interface ConcurrentTurnsDetails {
  readonly users: number;
  readonly completed: number;
  readonly errors: number;
  readonly firstErrors: readonly string[];
  readonly peakInFlight: number;
  readonly firstDelta: { p50: number; p99: number; max: number };
  readonly turnSeconds: { p50: number; max: number };
  readonly rssMb: { before: number; peak: number; growth: number };
  readonly seconds: number;
}

interface Outcome {
  readonly ok: boolean;
  readonly firstMs: number | null;
  readonly totalMs: number;
  readonly error: string | null;
}

/** One streamed turn: the time to its first `delta` event, and whether it ended with `done` (no `error`). */
function streamedTurn(options: ConcurrentTurnsOptions, agent: Agent, message: string): Promise<Outcome> {
  const payload = Buffer.from(JSON.stringify({ message, stream: true, model: options.model }));
  return new Promise((resolve) => {
    const started = performance.now();
    const fail = (error: string) =>
      resolve({ ok: false, firstMs: null, totalMs: performance.now() - started, error });
    const req = request(
      {
        host: '127.0.0.1',
        port: options.port,
        path: `/api/v1/core/llm/${options.agentId}/conversation`,
        method: 'POST',
        agent,
        headers: { ...options.headers, 'content-type': 'application/json', 'content-length': payload.length },
      },
      (res) => {
        let firstMs: number | null = null;
        let pending = '';
        let done = false;
        let error: string | null = res.statusCode === 200 ? null : `status ${res.statusCode}`;
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          if (firstMs === null && chunk.includes('event: delta')) firstMs = performance.now() - started;
          pending += chunk;
          let end: number;
          while ((end = pending.indexOf('\n\n')) >= 0) {
            const frame = pending.slice(0, end);
            pending = pending.slice(end + 2);
            if (frame.startsWith('event: done')) done = true;
            else if (frame.startsWith('event: error')) error ??= frame.slice(0, 300);
          }
        });
        res.on('end', () => {
          if (!done) error ??= `no done event: ${pending.slice(0, 300)}`;
          resolve({ ok: error === null, firstMs, totalMs: performance.now() - started, error });
        });
        res.on('error', (cause: Error) => fail(cause.message));
      },
    );
    req.on('error', (cause: Error) => fail(cause.message));
    req.end(payload);
  });
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export async function measureConcurrentTurns(
  options: ConcurrentTurnsOptions,
): Promise<{ rows: MetricRow[]; details: ConcurrentTurnsDetails }> {
  const agent = new Agent({ keepAlive: true, maxSockets: options.users + 8 });
  const rssBefore = memoryOf(options.apiPid).rssMb;
  let rssPeak = rssBefore;
  const sampler = setInterval(() => {
    rssPeak = Math.max(rssPeak, memoryOf(options.apiPid).rssMb);
  }, 250);
  let inFlight = 0;
  let peakInFlight = 0;
  const started = performance.now();
  log(
    `conversations: ${options.users} concurrent streamed turns (paced upstream, 15 s each), starts spread over ` +
      `${(options.rampMs / 1000).toFixed(0)} s …`,
  );
  try {
    const outcomes = await Promise.all(
      Array.from({ length: options.users }, async (_, i) => {
        await new Promise((resolve) => setTimeout(resolve, (i * options.rampMs) / options.users));
        inFlight++;
        peakInFlight = Math.max(peakInFlight, inFlight);
        try {
          return await streamedTurn(options, agent, options.questions[i % options.questions.length]!);
        } finally {
          inFlight--;
        }
      }),
    );
    rssPeak = Math.max(rssPeak, memoryOf(options.apiPid).rssMb);
    const failed = outcomes.filter((outcome) => !outcome.ok);
    const firsts = outcomes
      .flatMap((outcome) => (outcome.firstMs === null ? [] : [outcome.firstMs]))
      .sort((a, b) => a - b);
    const totals = outcomes.map((outcome) => outcome.totalMs / 1000).sort((a, b) => a - b);
    const details: ConcurrentTurnsDetails = {
      users: options.users,
      completed: outcomes.length - failed.length,
      errors: failed.length,
      firstErrors: [...new Set(failed.map((outcome) => outcome.error ?? ''))].slice(0, 5),
      peakInFlight,
      firstDelta: {
        p50: Number(median(firsts).toFixed(2)),
        p99: Number(percentile(firsts, 99).toFixed(2)),
        max: Number((firsts.at(-1) ?? Number.NaN).toFixed(2)),
      },
      turnSeconds: { p50: Number(median(totals).toFixed(2)), max: Number((totals.at(-1) ?? 0).toFixed(2)) },
      rssMb: {
        before: Number(rssBefore.toFixed(1)),
        peak: Number(rssPeak.toFixed(1)),
        growth: Number((rssPeak - rssBefore).toFixed(1)),
      },
      seconds: Number(((performance.now() - started) / 1000).toFixed(1)),
    };
    log(
      `conversations: ${details.completed}/${options.users} concurrent turns complete, ${details.errors} errors ` +
        `${JSON.stringify(details.firstErrors)}; peak ${peakInFlight} in flight; first delta p50 ` +
        `${details.firstDelta.p50} ms, p99 ${details.firstDelta.p99} ms; turn p50 ${details.turnSeconds.p50} s; ` +
        `api RSS ${details.rssMb.before.toFixed(0)} → ${details.rssMb.peak.toFixed(0)} MB`,
    );
    const label = `${options.users} concurrent streamed turns`;
    const rows: MetricRow[] = [
      {
        metric: `${label}: completed (peak ${peakInFlight} in flight)`,
        value: details.completed,
        unit: 'turns',
        baseline: null,
        baselineLabel: null,
        ratio: null,
        goal: { on: 'value', op: '>=', target: options.users },
      },
      {
        metric: `${label}: errors`,
        value: details.errors,
        unit: 'errors',
        baseline: null,
        baselineLabel: null,
        ratio: null,
        goal: { on: 'value', op: '<=', target: 0 },
      },
      {
        metric: `${label}: first delta p99 ÷ p50`,
        value: details.firstDelta.p99,
        unit: 'ms',
        baseline: details.firstDelta.p50,
        baselineLabel: 'ms p50',
        ratio: details.firstDelta.p99 / details.firstDelta.p50,
        goal: { on: 'ratio', op: '<=', target: 2 },
      },
      {
        metric: `${label}: api RSS growth`,
        value: details.rssMb.growth,
        unit: 'MB',
        baseline: details.rssMb.before,
        baselineLabel: 'MB before',
        ratio: null,
        goal: { on: 'value', op: '<=', target: 300 },
      },
    ];
    return { rows, details };
  } finally {
    clearInterval(sampler);
    agent.destroy();
  }
}
