// The MCP project's reference server (`@modelcontextprotocol/server-everything`) in streamable HTTP mode, started
// for a test on a free port and stopped by its process id: a real MCP server no one here wrote.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { freePort } from './fixtures.js';

const ENTRY = join(process.cwd(), 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');

export interface EverythingServer {
  /** Its MCP endpoint, on 127.0.0.1. */
  readonly url: string;
  readonly pid: number;
  stop(): Promise<void>;
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => process.kill(child.pid!, 'SIGKILL'), 3000);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    process.kill(child.pid!, 'SIGTERM');
  });
}

/** Streamable HTTP (`/mcp`), or the older HTTP+SSE transport (`/sse`) a client falls back to. */
export async function startEverythingServer(
  transport: 'streamableHttp' | 'sse' = 'streamableHttp',
  timeoutMs = 20_000,
): Promise<EverythingServer> {
  const port = await freePort();
  const child = spawn(process.execPath, [ENTRY, transport], {
    env: { PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const url = `http://127.0.0.1:${port}/${transport === 'sse' ? 'sse' : 'mcp'}`;
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null)
      throw new Error(`server-everything exited with ${child.exitCode}:\n${output}`);
    if (/listening|running/i.test(output)) return { url, pid: child.pid!, stop: () => stop(child) };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await stop(child);
  throw new Error(`server-everything did not start within ${timeoutMs} ms:\n${output}`);
}
