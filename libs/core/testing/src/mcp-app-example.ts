// The MCP project's example MCP App server (`@modelcontextprotocol/server-basic-vanillajs`: a `get-time` tool whose
// results render in the `ui://get-time/mcp-app.html` view) in streamable HTTP mode, started for a test on a free port
// (its PORT) and stopped by its process id: a real MCP App no one here wrote.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { freePort } from './fixtures.js';

const ENTRY = join(process.cwd(), 'node_modules/@modelcontextprotocol/server-basic-vanillajs/dist/index.js');

export interface McpAppExampleServer {
  /** Its MCP endpoint, on 127.0.0.1. */
  readonly url: string;
  stop(): Promise<void>;
}

export async function startMcpAppExample(timeoutMs = 20_000): Promise<McpAppExampleServer> {
  const port = await freePort();
  const child = spawn(process.execPath, [ENTRY], {
    env: { PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    // It ends its HTTP server on SIGTERM; a kept-alive connection could hold it, so it is killed after a while.
    const force = setTimeout(() => child.kill('SIGKILL'), 3000);
    child.kill('SIGTERM');
    await exited;
    clearTimeout(force);
  };
  let output = '';
  const ready = new Promise<void>((resolve, reject) => {
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      if (/listening/i.test(output)) resolve();
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    void exited.then(() => reject(new Error(`server-basic-vanillajs exited:\n${output}`)));
  });
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () => reject(new Error(`server-basic-vanillajs did not start:\n${output}`)),
      timeoutMs,
    );
  });
  try {
    await Promise.race([ready, late]);
  } catch (error) {
    await stop();
    throw error;
  } finally {
    clearTimeout(timer);
  }
  return { url: `http://127.0.0.1:${port}/mcp`, stop };
}
