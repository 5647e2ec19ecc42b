// `npm start` on an already built tree, as a person types it: from spawning npm until GET /health answers 200, on a
// fresh DATA_DIR each time (median of a few starts). The build step finds nothing changed (scripts/build.mjs), so
// this is npm's own start-up, the build's check and the api's cold start; the api's cold start alone (spawned
// directly, the `api` part's row) is the baseline.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort, healthStatus } from './api-startup.js';
import { log, makeTempDir, median, type MetricRow } from './util.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** One start: milliseconds from spawning npm to /health 200. The whole process group is stopped after. */
async function oneStart(timeoutMs: number): Promise<number> {
  const data = makeTempDir('npm-start');
  const port = await freePort();
  const started = performance.now();
  // npm_execpath is npm's own script when the bench runs under `npm run bench`; `npm` from PATH otherwise.
  const npmCli = process.env.npm_execpath;
  const [command, args] = npmCli ? [process.execPath, [npmCli, 'start']] : ['npm', ['start']];
  const child = spawn(command, args, {
    cwd: root,
    detached: true,
    stdio: 'ignore',
    env: { ...process.env, DATA_DIR: data.path, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
  });
  try {
    while (performance.now() - started < timeoutMs) {
      if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}`);
      if ((await healthStatus(port)) === 200) return performance.now() - started;
      await sleep(10);
    }
    throw new Error(`npm start: /health not ready within ${timeoutMs} ms`);
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, 'SIGTERM');
    await Promise.race([exited, sleep(5000)]);
    if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, 'SIGKILL');
    data.remove();
  }
}

export async function benchNpmStart(options: {
  readonly starts: number;
  readonly timeoutMs: number;
  /** The api's cold start spawned directly, in seconds (null when the `api` part did not run). */
  readonly apiColdStartS: number | null;
}): Promise<{ rows: MetricRow[]; details: { startsMs: number[] } }> {
  const startsMs: number[] = [];
  await oneStart(options.timeoutMs); // a build left to do runs here, not in a measured start
  for (let i = 0; i < options.starts; i++) startsMs.push(await oneStart(options.timeoutMs));
  const seconds = median(startsMs) / 1000;
  log(`npm start on a built tree: ${startsMs.map((ms) => ms.toFixed(0)).join(' / ')} ms`);
  return {
    rows: [
      {
        metric: '`npm start` on a built tree, to /health ready',
        value: seconds,
        unit: 's',
        baseline: options.apiColdStartS,
        baselineLabel: options.apiColdStartS === null ? null : 's api cold start',
        ratio: options.apiColdStartS === null ? null : seconds / options.apiColdStartS,
        goal: { on: 'value', op: '<=', target: 2 },
      },
    ],
    details: { startsMs },
  };
}
