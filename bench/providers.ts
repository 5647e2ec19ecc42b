// Benchmark: the gateway against each provider type, and a model whose primary deployment is down. Each vendor's fake
// upstream (libs/core/testing/src/fake-vendors, speaking its wire format) runs as its own process, as does the bare
// proxy (the floor of a Node proxy's CPU per request, in front of the plain fake upstream) and the api. Measured, in
// the same run: the api's CPU per chat completion (saturated at a fixed concurrency) for each provider type, against
// the bare proxy's; and the latency (p50, p99) of a model whose primary deployment refuses connections or answers 503,
// against the same model with only the healthy deployment.
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { BENCH_ADMIN_API_KEY, spawnApi, stop } from './api-startup.js';
import { startUpstream } from './gateway.js';
import { cpuSeconds, log, makeTempDir, type MetricRow } from './util.js';
import { FAKE_VENDORS, type FakeVendorUpstream } from '#testing/fake-vendors/index';

export interface ProvidersBenchOptions {
  readonly mainPath: string;
  readonly upstreamPath: string;
  readonly vendorPath: string;
  readonly bareProxyPath: string;
  readonly readyTimeoutMs: number;
  /** Saturated seconds per provider type (after a warm-up of a quarter of that), with this many requests in flight. */
  readonly seconds: number;
  readonly concurrency: number;
  /** Sequential requests per model in the primary-down comparison, in alternating blocks of `block`. */
  readonly requests: number;
  readonly block: number;
}

const KEY = 'bench-vendor-key-0123456789';
const body = (model: string) =>
  Buffer.from(
    JSON.stringify({
      model,
      max_tokens: 64,
      messages: [
        { role: 'system', content: 'You are a terse assistant.' },
        { role: 'user', content: 'Say hello in one sentence.' },
      ],
    }),
  );

async function startVendor(
  vendorPath: string,
  type: string,
): Promise<{ child: ChildProcess; baseUrl: string }> {
  const child = spawn(process.execPath, [vendorPath, type, KEY], { stdio: ['pipe', 'pipe', 'inherit'] });
  const baseUrl = await new Promise<string>((resolve, reject) => {
    let line = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      line += chunk.toString();
      if (line.includes('\n')) resolve((JSON.parse(line.split('\n')[0]!) as { baseUrl: string }).baseUrl);
    });
    child.once('exit', (code) => reject(new Error(`fake vendor ${type} exited (${code})`)));
  });
  child.stdout!.resume();
  return { child, baseUrl };
}

/** A port nothing listens on: a deployment there refuses every connection. */
const closedPort = (): Promise<number> =>
  new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

const percentile = (values: readonly number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
};

export async function benchProviders(options: ProvidersBenchOptions): Promise<{ rows: MetricRow[] }> {
  const dir = makeTempDir('providers');
  const children: ChildProcess[] = [];
  const agent = new Agent({ keepAlive: true, maxSockets: options.concurrency * 2 });
  const post = (port: number, path: string, payload: Buffer): Promise<number> =>
    new Promise((resolve, reject) => {
      const started = performance.now();
      const req = request(
        {
          host: '127.0.0.1',
          port,
          path,
          method: 'POST',
          agent,
          headers: {
            'content-type': 'application/json',
            'content-length': payload.length,
            authorization: `Bearer ${BENCH_ADMIN_API_KEY}`,
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () =>
            res.statusCode === 200
              ? resolve(performance.now() - started)
              : reject(new Error(`${path} answered ${res.statusCode}: ${Buffer.concat(chunks).toString()}`)),
          );
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  /** CPU seconds per request of `pid` while `concurrency` loops send to `port` for `seconds`. */
  const cpuPerRequest = async (pid: number, port: number, path: string, payload: Buffer, seconds: number) => {
    const before = cpuSeconds(pid);
    const deadline = performance.now() + seconds * 1000;
    let completed = 0;
    await Promise.all(
      Array.from({ length: options.concurrency }, async () => {
        while (performance.now() < deadline) {
          await post(port, path, payload);
          completed += 1;
        }
      }),
    );
    return ((cpuSeconds(pid) - before) / completed) * 1e6;
  };

  try {
    const types = Object.keys(FAKE_VENDORS);
    const vendors: Record<string, string> = {};
    const env: Record<string, string> = { BENCH_VENDOR_KEY: KEY };
    for (const type of types) {
      const vendor = await startVendor(options.vendorPath, type);
      children.push(vendor.child);
      vendors[type] = vendor.baseUrl;
      Object.assign(env, FAKE_VENDORS[type]!.env ?? {});
    }
    const plain = await startUpstream(options.upstreamPath, { reply: 'Hello there.' });
    children.push(plain.child);
    const bare = await startUpstream(options.bareProxyPath, { upstreamPort: plain.port });
    children.push(bare.child);
    const down = await closedPort();
    const failing = await startUpstream(options.upstreamPath, { failWith: { status: 503 } });
    children.push(failing.child);
    const plainUrl = `http://127.0.0.1:${plain.port}/v1`;
    const modelsFile = join(dir.path, 'models.yaml');
    writeFileSync(
      modelsFile,
      [
        'providers:',
        ...types.map(
          (type) =>
            `  p-${type}: ${JSON.stringify(FAKE_VENDORS[type]!.provider({ baseUrl: vendors[type]! } as FakeVendorUpstream, 'BENCH_VENDOR_KEY'))}`,
        ),
        `  plain: { baseUrl: '${plainUrl}' }`,
        `  refusing: { baseUrl: 'http://127.0.0.1:${down}/v1' }`,
        `  failing: { baseUrl: 'http://127.0.0.1:${failing.port}/v1' }`,
        'models:',
        ...types.map(
          (type) => `  - { key: bench-${type}, provider: p-${type}, modelId: vendor-model, kind: chat }`,
        ),
        '  - { key: bench-up, provider: plain, modelId: fake-model, kind: chat }',
        '  - { key: bench-down, provider: refusing, modelId: fake-model, kind: chat, deployments: [{ name: primary, weight: 1 }, { name: secondary, provider: plain, weight: 0 }] }',
        '  - { key: bench-503, provider: plain, modelId: fake-model, kind: chat, deployments: [{ name: primary, provider: failing, weight: 1 }, { name: secondary, provider: plain, weight: 0 }] }',
        '',
      ].join('\n'),
    );
    const api = await spawnApi(options.mainPath, join(dir.path, 'data'), options.readyTimeoutMs, {
      ...env,
      MODELS_FILE: modelsFile,
    });
    children.push(api.child);
    const compat = '/api/compat/v1/chat/completions';
    const rows: MetricRow[] = [];

    log(`providers: bare proxy and ${types.length} provider types, ${options.seconds} s saturated each …`);
    await cpuPerRequest(
      bare.child.pid!,
      bare.port,
      '/v1/chat/completions',
      body('fake-model'),
      options.seconds / 4,
    );
    const bareCpu = await cpuPerRequest(
      bare.child.pid!,
      bare.port,
      '/v1/chat/completions',
      body('fake-model'),
      options.seconds,
    );
    for (const type of types) {
      await cpuPerRequest(api.child.pid!, api.port, compat, body(`bench-${type}`), options.seconds / 4);
      const cpu = await cpuPerRequest(
        api.child.pid!,
        api.port,
        compat,
        body(`bench-${type}`),
        options.seconds,
      );
      rows.push({
        metric: `gateway api CPU per chat completion, ${type} upstream`,
        value: cpu,
        unit: 'µs',
        baseline: bareCpu,
        baselineLabel: 'bare proxy',
        ratio: cpu / bareCpu,
        goal: null,
      });
    }

    log(`providers: primary deployment down, ${options.requests} sequential requests per model …`);
    const latencies: Record<string, number[]> = { 'bench-up': [], 'bench-down': [], 'bench-503': [] };
    const models = Object.keys(latencies);
    for (const model of models)
      for (let i = 0; i < options.block; i++) await post(api.port, compat, body(model));
    for (let round = 0; round < Math.ceil(options.requests / options.block); round++)
      for (const model of round % 2 ? [...models].reverse() : models)
        for (let i = 0; i < options.block; i++)
          latencies[model]!.push(await post(api.port, compat, body(model)));
    const p99Up = percentile(latencies['bench-up']!, 99);
    for (const [model, label] of [
      ['bench-down', 'refusing connections'],
      ['bench-503', 'answering 503'],
    ] as const) {
      const added = percentile(latencies[model]!, 99) - p99Up;
      rows.push({
        metric: `p99 added by a primary deployment ${label} (ms)`,
        value: added,
        unit: 'ms',
        baseline: p99Up,
        baselineLabel: 'p99, healthy deployment only',
        ratio: null,
        // The retry policy's budget: the first backoff (ROUTER_BACKOFF_MS, 250 ms by default).
        goal: { on: 'value', op: '<=', target: 250 },
      });
      log(
        `providers: ${model} p50 ${percentile(latencies[model]!, 50).toFixed(2)} ms, p99 ` +
          `${percentile(latencies[model]!, 99).toFixed(2)} ms; healthy only p50 ` +
          `${percentile(latencies['bench-up']!, 50).toFixed(2)} ms, p99 ${p99Up.toFixed(2)} ms`,
      );
    }
    return { rows };
  } finally {
    agent.destroy();
    for (const child of children.reverse()) await stop(child);
    dir.remove();
  }
}
