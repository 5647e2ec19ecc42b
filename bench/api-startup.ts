// Benchmarks 3 and 4: API start-up to ready and idle RSS. Spawns the built api (`dist/apps/api/src/main.js`) on the
// running Node (process.execPath: Node 24 under `npm run`), measures from spawn until GET /health answers 200 (polled
// every 10 ms), then idles and reads VmRSS from /proc/<pid>/status. Cold starts use a fresh DATA_DIR each; a warm
// start reuses a DATA_DIR holding seeded data whose projections a previous start has already caught up.
// `spawnApi` (spawn on a free 127.0.0.1 port, wait for /health) is shared with the gateway benchmark.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store';
import { apiNodeFlags } from './node-flags.js';
import { log, makeTempDir, median, seed, type MetricRow, type SeedPlan } from './util.js';

const exitWithParentUrl = new URL('./exit-with-parent.js', import.meta.url).href;

/** ADMIN_API_KEY of every api the benchmarks start: a valid (admin) key once the api is ready. */
export const BENCH_ADMIN_API_KEY = 'bench-admin-key-0123456789abcdef';

export interface ApiStartupOptions {
  readonly mainPath: string;
  readonly coldStarts: number;
  readonly idleMs: number;
  readonly readyTimeoutMs: number;
  /** Data for the warm start (its first start, which catches the projections up, is reported too). */
  readonly warmPlan: SeedPlan;
}

export interface StartMeasurement {
  readonly kind: 'cold' | 'catch-up' | 'warm';
  readonly readyMs: number;
  readonly rssMb: number;
  readonly peakRssMb: number;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export function healthStatus(port: number): Promise<number | null> {
  return new Promise((resolve) => {
    const req = request(
      { host: '127.0.0.1', port, path: '/health', method: 'GET', agent: false, timeout: 2000 },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? null);
      },
    );
    req.on('error', () => resolve(null));
    req.on('timeout', () => req.destroy());
    req.end();
  });
}

/** VmRSS and VmHWM of a process, in MB. */
export function memoryOf(pid: number): { rssMb: number; peakRssMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssMb: kb('VmRSS') / 1024, peakRssMb: kb('VmHWM') / 1024 };
}

/** SIGTERM, then SIGKILL after 5 s; resolves once the child has exited. */
export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => {
    log(`child pid ${child.pid} ignored SIGTERM for 5 s: SIGKILL`);
    child.kill('SIGKILL');
  }, 5000);
  await exited;
  clearTimeout(timer);
}

export interface SpawnedApi {
  readonly child: ChildProcess;
  readonly port: number;
  /** From spawn until GET /health answered 200. */
  readonly readyMs: number;
  /** The last 4000 characters the api wrote to stdout and stderr. */
  readonly output: () => string;
}

/**
 * Spawns the built api on a free port of 127.0.0.1 with its own DATA_DIR and waits (10 ms polling) until GET /health
 * is 200; a child that exits or is not ready in time is stopped and reported with its output.
 */
export async function spawnApi(
  mainPath: string,
  dataDir: string,
  readyTimeoutMs: number,
  extraEnv: Readonly<Record<string, string>> = {},
  /** Preload exit-with-parent.js: the api ends with the bench process even if that is killed (costs a module load). */
  exitWithParent = false,
): Promise<SpawnedApi> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    ADMIN_API_KEY: BENCH_ADMIN_API_KEY,
    LOG_LEVEL: 'warn',
    ...extraEnv,
  };
  // The embedded stores and in-process projections, whatever the calling shell has configured.
  for (const name of ['EVENT_STORE', 'KURRENTDB_URL', 'READ_STORE', 'MONGODB_URI', 'RUN_PROJECTIONS'])
    delete env[name];
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
  };
  const started = performance.now();
  // The api's Node flags as `npm start` gives them (node-flags.ts).
  const args = [
    ...apiNodeFlags(),
    ...(exitWithParent ? ['--import', exitWithParentUrl, mainPath] : [mainPath]),
  ];
  const child = spawn(process.execPath, args, {
    env,
    stdio: [exitWithParent ? 'pipe' : 'ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  try {
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null)
        throw new Error(`api exited (${child.exitCode ?? child.signalCode}) before ready:\n${output}`);
      if (performance.now() - started > readyTimeoutMs)
        throw new Error(`api not ready within ${readyTimeoutMs} ms:\n${output}`);
      if ((await healthStatus(port)) === 200)
        return { child, port, readyMs: performance.now() - started, output: () => output };
      await sleep(10);
    }
  } catch (error) {
    await stop(child);
    throw error;
  }
}

/** The api as spawnApi starts it (ending with this process), its models read from `models.yaml` in `dir`. */
export function spawnApiWithModels(
  mainPath: string,
  dir: string,
  readyTimeoutMs: number,
  modelsYaml: readonly string[],
): Promise<SpawnedApi> {
  const modelsFile = join(dir, 'models.yaml');
  writeFileSync(modelsFile, [...modelsYaml, ''].join('\n'));
  return spawnApi(mainPath, join(dir, 'data'), readyTimeoutMs, { MODELS_FILE: modelsFile }, true);
}

async function startOnce(
  options: ApiStartupOptions,
  dataDir: string,
  kind: StartMeasurement['kind'],
): Promise<StartMeasurement> {
  const { child, readyMs } = await spawnApi(options.mainPath, dataDir, options.readyTimeoutMs);
  try {
    await sleep(options.idleMs);
    const memory = memoryOf(child.pid!);
    log(
      `api ${kind} start: ready in ${readyMs.toFixed(0)} ms, idle RSS ${memory.rssMb.toFixed(1)} MB ` +
        `(peak ${memory.peakRssMb.toFixed(1)} MB)`,
    );
    return { kind, readyMs, ...memory };
  } finally {
    await stop(child);
  }
}

export async function benchApiStartup(
  options: ApiStartupOptions,
): Promise<{ rows: MetricRow[]; details: StartMeasurement[] }> {
  const details: StartMeasurement[] = [];
  for (let i = 0; i < options.coldStarts; i++) {
    const dir = makeTempDir('api-cold');
    try {
      details.push(await startOnce(options, dir.path, 'cold'));
    } finally {
      dir.remove();
    }
  }

  const dir = makeTempDir('api-warm');
  let seeded: number;
  try {
    const store = new SqliteEventStore({ path: join(dir.path, 'events.db') });
    try {
      seeded = await seed(store, options.warmPlan);
    } finally {
      await store.close();
    }
    details.push(await startOnce(options, dir.path, 'catch-up'));
    details.push(await startOnce(options, dir.path, 'warm'));
  } finally {
    dir.remove();
  }

  const cold = details.filter((d) => d.kind === 'cold');
  const catchUp = details.find((d) => d.kind === 'catch-up')!;
  const warm = details.find((d) => d.kind === 'warm')!;
  const coldReady = median(cold.map((d) => d.readyMs)) / 1000;
  const coldRss = median(cold.map((d) => d.rssMb));
  const rows: MetricRow[] = [
    {
      metric: `API cold start to ready (median of ${cold.length}, fresh DATA_DIR)`,
      value: coldReady,
      unit: 's',
      baseline: null,
      baselineLabel: null,
      ratio: null,
      goal: { on: 'value', op: '<=', target: 0.8 },
    },
    {
      metric: `  first start on ${seeded.toLocaleString('en-US')} seeded events (catch-up, info)`,
      value: catchUp.readyMs / 1000,
      unit: 's',
      baseline: null,
      baselineLabel: null,
      ratio: null,
      goal: null,
    },
    {
      metric: '  warm start, same DATA_DIR, projections caught up',
      value: warm.readyMs / 1000,
      unit: 's',
      baseline: null,
      baselineLabel: null,
      ratio: null,
      goal: { on: 'value', op: '<=', target: 1.5 },
    },
    {
      metric: `Idle RSS after ready + ${options.idleMs / 1000} s (median of cold starts)`,
      value: coldRss,
      unit: 'MB',
      baseline: null,
      baselineLabel: null,
      ratio: null,
      goal: { on: 'value', op: '<=', target: 120 },
    },
    {
      metric: '  idle RSS, warm start with data',
      value: warm.rssMb,
      unit: 'MB',
      baseline: null,
      baselineLabel: null,
      ratio: null,
      goal: { on: 'value', op: '<=', target: 150 },
    },
  ];
  return { rows, details };
}
