// Runs the built api as a separate process on loopback, for tests that kill it (crash safety) or time it.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { apiNodeFlags } from '../../bench/node-flags.js';
import { freePort } from '#testing/fixtures';

export const API_ENTRY = join(process.cwd(), 'dist/apps/api/src/main.js');

export { freePort } from '#testing/fixtures';

/**
 * The api processes of this suite still running. A test that fails or times out before it stops its api would leave
 * the process running past the suite: holding the jest worker open ("A worker process has failed to exit gracefully")
 * until it exits, or orphaned. Every api started here ends with the suite, and none starts after it.
 */
const running = new Set<ChildProcess>();
let suiteEnded = false;
afterAll(async () => {
  suiteEnded = true;
  await Promise.all([...running].map((child) => stopProcess(child, 'SIGKILL')));
});

export interface ApiProcess {
  readonly url: string;
  readonly child: ChildProcess;
  output(): string;
}

export async function spawnApi(env: Record<string, string>, timeoutMs = 20_000): Promise<ApiProcess> {
  if (!existsSync(API_ENTRY)) throw new Error(`${API_ENTRY} is missing: npm test builds it first (pretest)`);
  if (suiteEnded)
    throw new Error('the suite has ended (a test went on after its timeout): no api is started');
  const port = await freePort();
  // Started as `npm start` starts it: with the Node flags of package.json's start script.
  const child = spawn(process.execPath, [...apiNodeFlags(), API_ENTRY], {
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`api exited with ${child.exitCode}:\n${output}`);
    const healthy = await fetch(`${url}/health`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (healthy) return { url, child, output: () => output };
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  child.kill('SIGKILL');
  throw new Error(`api did not become ready within ${timeoutMs} ms:\n${output}`);
}

export function stopProcess(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill(signal);
  });
}
