// Benchmark 7: the api's event loop under big turns, and incognito memory (issue 19, sections 7 and 8). The built api
// on its own DATA_DIR (offline models), this process as the client.
// (1) `turns` concurrent turns, each a new conversation with a `messageChars` message, while GET /health is sampled
//     every 50 ms by a process of its own, as a health checker is (health-sampler.ts): the slowest /health answer
//     (the goal: with some 30 answers it is their p99), their median, and the api's own event-loop delay
//     (nodejs_eventloop_lag_max_seconds); beside them (info) the slowest answer sampled from this process, which also
//     waits for this process's own loop while it builds and sends the turns' bodies and reads their answers.
// (2) On a fresh api, `incognitoTurns` incognito turns (four at a time) each with an `attachmentBytes` text attachment: the api's RSS
//     and V8 heap in use before and `settleMs` after, and how many turns the caps refused.
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { BENCH_ADMIN_API_KEY, memoryOf, spawnApi, stop } from './api-startup.js';
import { log, makeTempDir, median, text, type MetricRow } from './util.js';

export interface EventLoopBenchOptions {
  readonly mainPath: string;
  readonly readyTimeoutMs: number;
  readonly turns: number;
  readonly messageChars: number;
  readonly incognitoTurns: number;
  readonly attachmentBytes: number;
  readonly settleMs: number;
}

const CORE = '/api/v1/core';
const HEADERS = { 'x-api-key': BENCH_ADMIN_API_KEY, 'content-type': 'application/json' };
const SAMPLER = fileURLToPath(new URL('./health-sampler.js', import.meta.url));

/**
 * Samples `base`/health every 50 ms in a process of its own until `stop` is called; resolves with the durations of the
 * requests sent from `since` (ms since the epoch) on.
 */
function sampleElsewhere(base: string): { stop: (since: number) => Promise<number[]> } {
  const child = spawn(process.execPath, [SAMPLER, base, '50'], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    stop: async (since) => {
      child.stdin.end();
      const code = await exited;
      if (code !== 0)
        throw new Error(`the /health sampler ended with exit code ${code} (its error is above)`);
      return (JSON.parse(output) as [number, number][]).filter(([sent]) => sent >= since).map(([, ms]) => ms);
    },
  };
}

const row = (metric: string, value: number, unit: string, goal: MetricRow['goal'] = null): MetricRow => ({
  metric,
  value: Number(value.toFixed(1)),
  unit,
  baseline: null,
  baselineLabel: null,
  ratio: null,
  goal,
});

/** A fresh api on its own DATA_DIR, with an Agent, for one phase; stopped and removed after `phase`. */
async function withApi<T>(
  options: EventLoopBenchOptions,
  phase: (api: {
    base: string;
    turnPath: string;
    post: (path: string, body: unknown) => Promise<{ status: number; body: { id?: string } }>;
    metric: (name: string) => Promise<number>;
    rssMb: () => number;
  }) => Promise<T>,
): Promise<T> {
  const dir = makeTempDir('event-loop');
  const api = await spawnApi(options.mainPath, dir.path, options.readyTimeoutMs);
  const base = `http://127.0.0.1:${api.port}`;
  const post = async (path: string, body: unknown) => {
    const response = await fetch(`${base}${CORE}${path}`, {
      method: 'POST',
      headers: HEADERS,
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as { id?: string } };
  };
  const metric = async (name: string): Promise<number> => {
    const line = (await (await fetch(`${base}/metrics`)).text())
      .split('\n')
      .find((l) => l.startsWith(`${name} `));
    return line ? Number(line.split(' ')[1]) : Number.NaN;
  };
  const rssMb = () => memoryOf(api.child.pid!).rssMb;
  try {
    const space = await post('/spaces', { name: 'Event loop bench' });
    const agent = await post('/agents', { spaceId: space.body.id, name: 'Big turns' });
    return await phase({ base, turnPath: `/llm/${agent.body.id}/conversation`, post, metric, rssMb });
  } finally {
    await stop(api.child);
    dir.remove();
  }
}

export async function benchEventLoop(options: EventLoopBenchOptions): Promise<{ rows: MetricRow[] }> {
  const loop = await withApi(options, async ({ base, turnPath, post, metric }) => {
    log(`event loop: ${options.turns} concurrent turns of ${options.messageChars} characters …`);
    const elsewhere = sampleElsewhere(base);
    // Started and its first requests answered before the turns start; those before are not counted.
    await sleep(500);
    const since = performance.timeOrigin + performance.now();
    let sampling = true;
    const healthMs: number[] = [];
    const sampler = (async () => {
      while (sampling) {
        const started = performance.now();
        await (await fetch(`${base}/health`)).text();
        healthMs.push(performance.now() - started);
        await sleep(50);
      }
    })();
    const statuses = await Promise.all(
      Array.from({ length: options.turns }, (_, index) =>
        post(turnPath, { message: text(options.messageChars, index * 31) }).then((reply) => reply.status),
      ),
    );
    sampling = false;
    await sampler;
    const otherMs = await elsewhere.stop(since);
    const failed = statuses.filter((status) => status !== 201).length;
    const lagMaxMs = (await metric('nodejs_eventloop_lag_max_seconds')) * 1000;
    return {
      healthMaxMs: Math.max(...otherMs),
      healthP50Ms: median(otherMs),
      samples: otherMs.length,
      sameProcessMaxMs: Math.max(...healthMs),
      failed,
      lagMaxMs,
    };
  });
  const incognito = await withApi(options, async ({ turnPath, post, metric, rssMb }) => {
    log(`incognito: ${options.incognitoTurns} turns with ${options.attachmentBytes}-byte attachments …`);
    const rssBefore = rssMb();
    const heapBefore = (await metric('nodejs_heap_size_used_bytes')) / 1024 ** 2;
    const file = Buffer.from(text(options.attachmentBytes, 5)).toString('base64');
    let refused = 0;
    for (let index = 0; index < options.incognitoTurns; index += 4) {
      const replies = await Promise.all(
        Array.from({ length: Math.min(4, options.incognitoTurns - index) }, (_, offset) =>
          post(turnPath, {
            visibility: 'incognito',
            message: {
              content: `what does file ${index + offset} say?`,
              attachments: [{ name: `f${index + offset}.txt`, mimeType: 'text/plain', dataBase64: file }],
            },
          }),
        ),
      );
      refused += replies.filter((reply) => reply.status === 429).length;
    }
    await sleep(options.settleMs);
    const rssAfter = rssMb();
    const heapAfter = (await metric('nodejs_heap_size_used_bytes')) / 1024 ** 2;
    return { rssBefore, rssAfter, heapBefore, heapAfter, refused };
  });
  const { healthMaxMs, healthP50Ms, samples, sameProcessMaxMs, failed, lagMaxMs } = loop;
  const { rssBefore, rssAfter, heapBefore, heapAfter, refused } = incognito;
  return {
    rows: [
      row(
        `/health max latency, ${options.turns} concurrent ${options.messageChars / 1000}k turns`,
        healthMaxMs,
        'ms',
        {
          on: 'value',
          op: '<=',
          target: 200,
        },
      ),
      row(
        `  /health p50 (${samples} answers, one every 50 ms, from a process of their own)`,
        healthP50Ms,
        'ms',
      ),
      row('  /health max sampled from the process sending the turns (info)', sameProcessMaxMs, 'ms'),
      row('  api event-loop delay max (since start)', lagMaxMs, 'ms'),
      row('  turns failed', failed, 'turns', { on: 'value', op: '<=', target: 0 }),
      row(`incognito: RSS before ${options.incognitoTurns} attachment turns (fresh api)`, rssBefore, 'MB'),
      row(`incognito: RSS ${options.settleMs / 1000} s after them`, rssAfter, 'MB'),
      row('incognito: V8 heap in use, after − before', heapAfter - heapBefore, 'MB'),
      row('incognito: turns refused by the caps', refused, 'turns'),
    ],
  };
}
