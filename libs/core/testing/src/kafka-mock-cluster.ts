// A real Kafka-protocol broker for tests without Kafka: librdkafka's mock cluster, run by the small C program in
// ../kafka-mock/mock-cluster.c. The program is compiled on first use into node_modules/.cache (again only when its
// source is newer than the binary) and started as a child process; its brokers listen on 127.0.0.1 only. When
// librdkafka or a C compiler is missing, the harness says exactly what is missing instead, so suites can skip aloud.
import { spawn, execFile, type ChildProcessByStdio } from 'node:child_process';
import { mkdir, rename, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');
const SOURCE = join(ROOT, 'libs/core/testing/kafka-mock/mock-cluster.c');
const CACHE_DIR = join(ROOT, 'node_modules/.cache/agent-platform/kafka-mock');
const BINARY = join(CACHE_DIR, 'mock-cluster');
const STARTUP_TIMEOUT_MS = 10_000;
const STOP_TIMEOUT_MS = 5_000;

export interface KafkaMockCluster {
  /** Bootstrap servers, 127.0.0.1:<port> each. */
  readonly brokers: string[];
  /** Stops the broker process (SIGTERM to its PID, SIGKILL if it lingers) and waits until it has exited. */
  stop(): Promise<void>;
}

export interface KafkaMockClusterUnavailable {
  /** Why no cluster could be started, for the suite's skip line. */
  readonly unavailable: string;
}

const failed = async (command: string, args: readonly string[]): Promise<boolean> => {
  try {
    await run(command, [...args]);
    return false;
  } catch {
    return true;
  }
};

const mtime = async (path: string): Promise<number | undefined> => {
  try {
    return (await stat(path)).mtimeMs;
  } catch {
    return undefined;
  }
};

/** Compiles the mock-cluster program if needed; a reason when this machine cannot. */
async function build(): Promise<{ unavailable: string } | undefined> {
  if (await failed('pkg-config', ['--version'])) {
    return { unavailable: 'pkg-config is not installed (apt-get install pkg-config librdkafka-dev)' };
  }
  if (await failed('pkg-config', ['--exists', 'rdkafka'])) {
    return {
      unavailable:
        'librdkafka is not installed: `pkg-config --exists rdkafka` failed (apt-get install librdkafka-dev)',
    };
  }
  if (await failed('cc', ['--version'])) return { unavailable: 'no C compiler: `cc --version` failed' };
  const built = await mtime(BINARY);
  const source = await mtime(SOURCE);
  if (built !== undefined && source !== undefined && built >= source) return undefined;
  const { stdout: flags } = await run('pkg-config', ['--cflags', '--libs', 'rdkafka']);
  await mkdir(CACHE_DIR, { recursive: true });
  // Built beside the target and renamed, so parallel Jest workers never run a half-written binary.
  const partial = `${BINARY}.${process.pid}.tmp`;
  try {
    await run('cc', ['-O2', '-pthread', '-o', partial, SOURCE, ...flags.trim().split(/\s+/).filter(Boolean)]);
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? String(error);
    throw new Error(`compiling ${SOURCE} failed:\n${stderr}`, { cause: error });
  }
  await rename(partial, BINARY);
  return undefined;
}

/** Reads the first line of the child's stdout: the bootstrap list. */
function bootstrapLine(child: ChildProcessByStdio<Writable, Readable, Readable>): Promise<string> {
  return new Promise((resolveLine, reject) => {
    let stdout = '';
    let stderr = '';
    const finish = (error: Error | undefined, line?: string): void => {
      clearTimeout(timer);
      child.stdout.off('data', onData);
      child.stderr.off('data', onStderr);
      child.off('exit', onExit);
      if (error) reject(error);
      else resolveLine(line!);
    };
    const onData = (chunk: Buffer): void => {
      stdout += chunk.toString('utf8');
      const end = stdout.indexOf('\n');
      if (end >= 0) finish(undefined, stdout.slice(0, end).trim());
    };
    const onExit = (code: number | null, signal: NodeJS.Signals | null): void =>
      finish(
        new Error(`mock cluster exited before listening (code ${code}, signal ${signal}): ${stderr.trim()}`),
      );
    const timer = setTimeout(
      () => finish(new Error(`mock cluster printed no bootstrap servers within ${STARTUP_TIMEOUT_MS} ms`)),
      STARTUP_TIMEOUT_MS,
    );
    const onStderr = (chunk: Buffer): void => void (stderr += chunk.toString('utf8'));
    child.stderr.on('data', onStderr);
    child.stdout.on('data', onData);
    child.on('exit', onExit);
  });
}

/**
 * Starts a mock cluster of `brokers` brokers (3 by default), or says why it cannot. The child also exits when this
 * process dies (its stdin closes), so a crashed test run leaves no broker behind.
 */
export async function startKafkaMockCluster(
  options: { brokers?: number } = {},
): Promise<KafkaMockCluster | KafkaMockClusterUnavailable> {
  const missing = await build();
  if (missing) return missing;
  const child = spawn(BINARY, [String(options.brokers ?? 3)], { stdio: ['pipe', 'pipe', 'pipe'] });
  const exited = new Promise<void>((resolveExit) => child.once('exit', () => resolveExit()));
  const pid = child.pid;
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null || pid === undefined) return;
    const signal = (name: NodeJS.Signals): void => {
      try {
        process.kill(pid, name);
      } catch {
        // Exited in the meantime (ESRCH): `exited` settles.
      }
    };
    signal('SIGTERM');
    const timer = setTimeout(() => {
      if (child.exitCode === null && child.signalCode === null) signal('SIGKILL');
    }, STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
    child.stdin.destroy();
  };
  try {
    const line = await bootstrapLine(child);
    const brokers = line.split(',').filter(Boolean);
    if (brokers.length === 0)
      throw new Error(`mock cluster printed no bootstrap servers: ${JSON.stringify(line)}`);
    // Drain what the broker writes later, so a full pipe never blocks it.
    child.stdout.resume();
    child.stderr.resume();
    return { brokers, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
