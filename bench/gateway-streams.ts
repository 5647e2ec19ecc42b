// Many streams at once through the compatible gateway: 1,000 concurrent `stream: true` chat completions against a
// fake upstream paced like a live model (the first token 50 ms after the request, then 20 tokens a second, 300 tokens:
// 15 s a stream). Three processes as in bench/gateway.ts: the paced upstream, the built api, and this process as the
// client (one keep-alive http.Agent with a socket per stream, so the client never queues a stream). Measured: every
// stream completes with the upstream's text, the spread of time to first content chunk at the client (p99 ÷ p50),
// the api's RSS growth over its idle RSS after a warm-up, and errors. The same wave goes straight to the upstream and
// through the bare proxy (bare-proxy-server.ts: the stream's bytes piped, nothing parsed) before the gateway's: on two
// cores a third process forwarding every chunk competes with the upstream and the client, and the bare proxy's spread
// is the floor of any Node gateway here.
import { type ChildProcess } from 'node:child_process';
import { Agent, request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { BENCH_ADMIN_API_KEY, memoryOf, spawnApiWithModels, stop } from './api-startup.js';
import { startUpstream } from './gateway.js';
import { log, makeTempDir, median, type MetricRow } from './util.js';

export interface GatewayStreamsOptions {
  readonly mainPath: string;
  readonly upstreamPath: string;
  readonly readyTimeoutMs: number;
  /** Streams in flight together. */
  readonly streams: number;
  /** Content tokens a stream carries, one SSE chunk each… */
  readonly tokens: number;
  /** …this far apart (50 ms: 20 tokens a second), the first this long after the request. */
  readonly tokenDelayMs: number;
  /** The streams start evenly over this long (a burst of new connections, not one instant). */
  readonly rampMs: number;
}

export interface GatewayStreamsDetails {
  readonly streams: number;
  readonly completed: number;
  readonly errors: number;
  readonly firstDelta: { p50Ms: number; p90Ms: number; p99Ms: number; maxMs: number };
  readonly streamSeconds: { p50: number; max: number };
  readonly apiRssMb: { idle: number; peak: number; growth: number };
  readonly wallSeconds: number;
  /** The same streams straight to the upstream, before the gateway's: the floor of the client and upstream. */
  readonly directFirstDelta: { p50Ms: number; p99Ms: number };
  /** The same streams through the bare proxy: the floor of a Node process forwarding them. */
  readonly bareFirstDelta: { p50Ms: number; p99Ms: number };
}

interface Outcome {
  readonly ok: boolean;
  readonly firstDeltaMs: number | null;
  readonly ms: number;
  readonly error: string | null;
}

/** 300 words: the fake upstream splits the reply into one chunk per word. */
const replyOf = (tokens: number): string => Array.from({ length: tokens }, (_, i) => `word${i}`).join(' ');

const percentile = (sorted: readonly number[], p: number): number =>
  sorted.length === 0
    ? Number.NaN
    : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;

/** A row of a first delta's spread: p99 against p50. */
const spreadOf = (firstDelta: { readonly p50Ms: number; readonly p99Ms: number }): number =>
  firstDelta.p99Ms / firstDelta.p50Ms;

const spread = (
  metric: string,
  firstDelta: { readonly p50Ms: number; readonly p99Ms: number },
  goal: MetricRow['goal'] = null,
): MetricRow => ({
  metric,
  value: firstDelta.p99Ms,
  unit: 'ms',
  baseline: firstDelta.p50Ms,
  baselineLabel: 'ms p50',
  ratio: spreadOf(firstDelta),
  goal,
});

export async function benchGatewayStreams(
  options: GatewayStreamsOptions,
): Promise<{ rows: MetricRow[]; details: GatewayStreamsDetails }> {
  const dir = makeTempDir('gateway-streams');
  const children: ChildProcess[] = [];
  const agent = new Agent({ keepAlive: true, maxSockets: options.streams + 16 });
  const reply = replyOf(options.tokens);
  try {
    // The role chunk goes at once; each content chunk follows `tokenDelayMs` after the one before.
    const upstream = await startUpstream(options.upstreamPath, {
      reply,
      streamChunks: options.tokens,
      chunkDelayMs: options.tokenDelayMs,
    });
    children.push(upstream.child);
    const api = await spawnApiWithModels(options.mainPath, dir.path, options.readyTimeoutMs, [
      'providers:',
      `  paced: { baseUrl: http://127.0.0.1:${upstream.port}/v1 }`,
      'models:',
      '  - { key: bench-paced, modelId: fake-model, provider: paced, kind: chat, pricing: { input: 1, output: 2 } }',
    ]);
    children.push(api.child);
    const bare = await startUpstream(new URL('./bare-proxy-server.js', import.meta.url).pathname, {
      upstreamPort: upstream.port,
    });
    children.push(bare.child);
    const bodyOf = (model: string) =>
      Buffer.from(
        JSON.stringify({
          model,
          messages: [{ role: 'user', content: 'Count for me.' }],
          max_tokens: options.tokens * 2,
          stream: true,
        }),
      );
    const gateway = { port: api.port, path: '/api/compat/v1/chat/completions', body: bodyOf('bench-paced') };
    // The same streams straight to the upstream: what the client and the upstream alone reach on this machine.
    const direct = { port: upstream.port, path: '/v1/chat/completions', body: bodyOf('fake-model') };
    const throughBare = { port: bare.port, path: '/v1/chat/completions', body: bodyOf('fake-model') };

    const streamOnce = (target: typeof gateway): Promise<Outcome> =>
      new Promise((resolve) => {
        const { body } = target;
        const started = performance.now();
        let firstDeltaMs: number | null = null;
        let text = '';
        let done = false;
        let pending = '';
        const fail = (error: unknown) =>
          resolve({ ok: false, firstDeltaMs, ms: performance.now() - started, error: String(error) });
        const req = request(
          {
            host: '127.0.0.1',
            port: target.port,
            path: target.path,
            method: 'POST',
            agent,
            headers: {
              'content-type': 'application/json',
              'content-length': body.length,
              authorization: `Bearer ${BENCH_ADMIN_API_KEY}`,
            },
          },
          (res) => {
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => {
              pending += chunk;
              let end: number;
              while ((end = pending.indexOf('\n')) >= 0) {
                const line = pending.slice(0, end).trimEnd();
                pending = pending.slice(end + 1);
                if (!line.startsWith('data:')) continue;
                const payload = line.slice(5).trim();
                if (payload === '[DONE]') {
                  done = true;
                  continue;
                }
                const event = JSON.parse(payload) as { choices?: { delta?: { content?: string | null } }[] };
                const content = event.choices?.[0]?.delta?.content;
                if (typeof content === 'string' && content.length > 0) {
                  firstDeltaMs ??= performance.now() - started;
                  text += content;
                }
              }
            });
            res.on('end', () => {
              const ok = res.statusCode === 200 && done && text === reply;
              resolve({
                ok,
                firstDeltaMs,
                ms: performance.now() - started,
                error: ok ? null : `status ${res.statusCode}, done ${done}, ${text.length} characters`,
              });
            });
            res.on('error', fail);
          },
        );
        req.on('error', fail);
        req.end(body);
      });

    // A warm-up of a few streams (code paths compiled, pools opened), then the api's idle RSS.
    await Promise.all(Array.from({ length: 8 }, () => streamOnce(gateway)));
    await Promise.all(Array.from({ length: 8 }, () => streamOnce(throughBare)));
    await sleep(1000);
    const idleRss = memoryOf(api.child.pid!).rssMb;
    let peakRss = idleRss;
    const sampler = setInterval(() => {
      peakRss = Math.max(peakRss, memoryOf(api.child.pid!).rssMb);
    }, 100);
    log(
      `gateway streams: ${options.streams} concurrent streams of ${options.tokens} tokens ${options.tokenDelayMs} ms ` +
        `apart, started over ${options.rampMs} ms …`,
    );
    const wave = (target: typeof gateway) =>
      Promise.all(
        Array.from({ length: options.streams }, async (_, i) => {
          await sleep((i * options.rampMs) / options.streams);
          return streamOnce(target);
        }),
      );
    const firstsOf = (outcomes: readonly Outcome[]) =>
      outcomes
        .map((o) => o.firstDeltaMs)
        .filter((ms): ms is number => ms !== null)
        .sort((a, b) => a - b);
    const directFirsts = firstsOf(await wave(direct));
    const bareOutcomes = await wave(throughBare);
    const bareFailed = bareOutcomes.filter((o) => !o.ok);
    if (bareFailed.length > 0)
      throw new Error(
        `${bareFailed.length} streams failed through the bare proxy, e.g. ${bareFailed[0]!.error}`,
      );
    const bareFirsts = firstsOf(bareOutcomes);
    const started = performance.now();
    const outcomes = await wave(gateway);
    const wallSeconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    peakRss = Math.max(peakRss, memoryOf(api.child.pid!).rssMb);

    const failed = outcomes.filter((o) => !o.ok);
    if (failed.length > 0) log(`gateway streams: ${failed.length} failed, e.g. ${failed[0]!.error}`);
    const firsts = firstsOf(outcomes);
    const seconds = outcomes.map((o) => o.ms / 1000).sort((a, b) => a - b);
    const details: GatewayStreamsDetails = {
      streams: options.streams,
      completed: outcomes.length - failed.length,
      errors: failed.length,
      firstDelta: {
        p50Ms: percentile(firsts, 50),
        p90Ms: percentile(firsts, 90),
        p99Ms: percentile(firsts, 99),
        maxMs: firsts[firsts.length - 1] ?? Number.NaN,
      },
      streamSeconds: { p50: median(seconds), max: seconds[seconds.length - 1] ?? Number.NaN },
      apiRssMb: { idle: idleRss, peak: peakRss, growth: peakRss - idleRss },
      wallSeconds,
      directFirstDelta: { p50Ms: percentile(directFirsts, 50), p99Ms: percentile(directFirsts, 99) },
      bareFirstDelta: { p50Ms: percentile(bareFirsts, 50), p99Ms: percentile(bareFirsts, 99) },
    };
    log(
      `gateway streams: straight to the upstream, first delta p50 ${percentile(directFirsts, 50).toFixed(1)} / p99 ` +
        `${percentile(directFirsts, 99).toFixed(1)} ms; through the bare proxy p50 ` +
        `${percentile(bareFirsts, 50).toFixed(1)} / p99 ${percentile(bareFirsts, 99).toFixed(1)} ms`,
    );
    log(
      `gateway streams: ${details.completed}/${options.streams} complete in ${wallSeconds.toFixed(1)} s, first delta ` +
        `p50 ${details.firstDelta.p50Ms.toFixed(1)} / p99 ${details.firstDelta.p99Ms.toFixed(1)} ms, api RSS ` +
        `${idleRss.toFixed(0)} → ${peakRss.toFixed(0)} MB`,
    );
    const n = options.streams.toLocaleString('en-US');
    const rows: MetricRow[] = [
      {
        metric: `gateway ${n} concurrent streams: completed`,
        value: details.completed,
        unit: 'streams',
        baseline: options.streams,
        baselineLabel: 'streams started',
        ratio: details.completed / options.streams,
        goal: { on: 'ratio', op: '>=', target: 1 },
      },
      // The goal is 2, unless the same streams straight to the upstream, with no process forwarding them, spread more
      // in this run: then that is this machine's floor (the client and the upstream alone), and the goal is to stay
      // within it (a forwarder adds a third process competing for the two cores).
      spread(
        `gateway ${n} concurrent streams: first delta p99 ÷ p50 (≤ 2, or the direct streams' own when above)`,
        details.firstDelta,
        {
          on: 'ratio',
          op: '<=',
          target: Math.max(2, Number(spreadOf(details.directFirstDelta).toFixed(2))),
        },
      ),
      spread(
        '  reference: the same streams straight to the upstream, first delta p99 ÷ p50 (info)',
        details.directFirstDelta,
      ),
      spread(
        '  reference: the same streams through the bare proxy, first delta p99 ÷ p50 (info)',
        details.bareFirstDelta,
      ),
      {
        metric: `gateway ${n} concurrent streams: api RSS growth`,
        value: details.apiRssMb.growth,
        unit: 'MB',
        baseline: idleRss,
        baselineLabel: 'MB idle',
        ratio: null,
        goal: { on: 'value', op: '<=', target: 300 },
      },
      {
        metric: `gateway ${n} concurrent streams: errors`,
        value: details.errors,
        unit: 'streams',
        baseline: null,
        baselineLabel: null,
        ratio: null,
        goal: { on: 'value', op: '<=', target: 0 },
      },
    ];
    return { rows, details };
  } finally {
    agent.destroy();
    for (const child of [...children].reverse()) await stop(child);
    dir.remove();
  }
}
