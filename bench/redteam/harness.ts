// The red-team rerun's shared parts: the api started as `npm start` starts it (the built main.js on a DATA_DIR of its
// own, on 127.0.0.1), a JSON client, a /health prober that records how long the api took to answer while a
// scenario runs, and the api's memory read from /proc. Every loop is bounded in count and time; only loopback.
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { BENCH_ADMIN_API_KEY, spawnApi, stop, type SpawnedApi } from '../api-startup.js';

export const MAIN_PATH = fileURLToPath(new URL('../../apps/api/src/main.js', import.meta.url));
export const ADMIN_KEY = BENCH_ADMIN_API_KEY;

export interface RunningApi {
  readonly base: string;
  readonly api: SpawnedApi;
  stop(): Promise<void>;
  kill(): Promise<void>;
}

export async function startApi(dataDir: string, env: Record<string, string> = {}): Promise<RunningApi> {
  const api = await spawnApi(MAIN_PATH, dataDir, 60_000, { LOG_LEVEL: 'warn', ...env }, true);
  let stopping = false;
  api.child.once('exit', (code, signal) => {
    if (!stopping) log(`the api exited on its own (${signal ?? code}); its last output:\n${api.output()}`);
  });
  return {
    base: `http://127.0.0.1:${api.port}`,
    api,
    stop: () => {
      stopping = true;
      return stop(api.child);
    },
    kill: async () => {
      stopping = true;
      if (api.child.exitCode !== null || api.child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => api.child.once('exit', () => resolve()));
      api.child.kill('SIGKILL');
      await exited;
    },
  };
}

export interface Reply {
  readonly status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a red-team client reads whatever came back
  readonly body: any;
  readonly headers: Headers;
}

/** JSON in, JSON (or text) out; a network failure is status 0. */
export async function call(
  base: string,
  method: string,
  path: string,
  options: { key?: string | null; body?: unknown; headers?: Record<string, string>; timeoutMs?: number } = {},
): Promise<Reply> {
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  const key = options.key === undefined ? ADMIN_KEY : options.key;
  if (key) headers['x-api-key'] = key;
  let body: FormData | string | undefined;
  if (options.body instanceof FormData) body = options.body;
  else if (options.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.body);
  }
  try {
    const response = await fetch(`${base}${path}`, {
      method,
      headers,
      body,
      signal: AbortSignal.timeout(options.timeoutMs ?? 120_000),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON: keep the text
    }
    return { status: response.status, body: parsed, headers: response.headers };
  } catch {
    return { status: 0, body: null, headers: new Headers() };
  }
}

/** Polls GET /health every `everyMs` and keeps the slowest answer (a refused or timed-out probe counts its wait). */
export class HealthProber {
  private worstMs = 0;
  private probes = 0;
  private overOneSecond = 0;
  private failures = 0;
  private running = true;
  private readonly loop: Promise<void>;

  constructor(
    private readonly base: () => string,
    everyMs = 200,
  ) {
    this.loop = (async () => {
      while (this.running) {
        const started = performance.now();
        const reply = await call(this.base(), 'GET', '/health', { key: null, timeoutMs: 10_000 });
        const took = performance.now() - started;
        this.probes++;
        if (reply.status === 0) this.failures++;
        if (took > 1000) this.overOneSecond++;
        this.worstMs = Math.max(this.worstMs, took);
        await sleep(everyMs);
      }
    })();
  }

  /** Probes while the api is down (between a kill and a restart) are not counted against it. */
  pauseCounting<T>(during: () => Promise<T>): Promise<T> {
    const saved = { ...this.snapshot() };
    return during().finally(() => {
      this.worstMs = saved.worstMs;
      this.failures = saved.failures;
      this.overOneSecond = saved.overOneSecond;
    });
  }

  snapshot() {
    return {
      probes: this.probes,
      worstMs: Math.round(this.worstMs),
      overOneSecond: this.overOneSecond,
      failures: this.failures,
    };
  }

  async stop() {
    this.running = false;
    await this.loop;
    return this.snapshot();
  }
}

/** VmRSS of a process and of its children (the document-preparation children count too), in MB. */
export function rssMb(pid: number): number {
  const own = (id: number) => {
    try {
      const status = readFileSync(`/proc/${id}/status`, 'utf8');
      return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? 0) / 1024;
    } catch {
      return 0;
    }
  };
  let total = own(pid);
  try {
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/);
    for (const child of children) if (child) total += own(Number(child));
  } catch {
    // no children file: the process is gone
  }
  return Math.round(total);
}

export const report = (section: string, figures: Record<string, unknown>): void => {
  process.stdout.write(`\n== ${section}\n`);
  for (const [name, value] of Object.entries(figures))
    process.stdout.write(`  ${name}: ${typeof value === 'string' ? value : JSON.stringify(value)}\n`);
};

export const log = (message: string): void => {
  process.stderr.write(`[redteam] ${message}\n`);
};

/** A Space and an Agent in it, for the scenarios that need one. */
export async function spaceAndAgent(
  base: string,
  label: string,
): Promise<{ spaceId: string; agentId: string }> {
  const space = await call(base, 'POST', '/api/v1/core/spaces', { body: { name: `${label} ${Date.now()}` } });
  if (space.status !== 201) throw new Error(`space: ${space.status} ${JSON.stringify(space.body)}`);
  const agent = await call(base, 'POST', '/api/v1/core/agents', {
    body: { spaceId: space.body.id, name: `${label} agent` },
  });
  if (agent.status !== 201) throw new Error(`agent: ${agent.status} ${JSON.stringify(agent.body)}`);
  return { spaceId: space.body.id, agentId: agent.body.id };
}
