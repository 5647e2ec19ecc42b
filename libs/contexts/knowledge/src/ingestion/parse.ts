// Parsing a document, and preparing a stored one (sniff, decode, parse, chunk), within limits, in a CHILD PROCESS.
// A hostile file can make a parser allocate without end (a 1 MiB PDF whose content stream inflates to 1 GiB, a zip
// bomb): in a worker thread its Buffers and ArrayBuffers live outside the thread's heap cap and take the whole api
// down. A child process is bounded as a whole: by a supervisor that reads its resident memory every 50 ms and kills it
// over the limit, by the kernel as a backstop (RLIMIT_DATA through `prlimit`, when the system has it: an allocation
// past it fails inside the child), and by the wall-clock limit (a parse is single-threaded, so that bounds its CPU time
// too). However the child ends, the api only ever sees a result or an IngestionError: `too_large`, `timeout`,
// `parser_crashed`, `parse_failed`, `unsupported_type` or `empty`.
//
// Children are kept warm in a small pool (starting one and loading pdf.js, mammoth, … costs more than most parses); a
// child that hit a limit, crashed or served MAX_JOBS_PER_CHILD requests is never reused.
//
// The child is the compiled `parse-child.js` beside this module (dist/ in production). When this module runs from its
// TypeScript sources (under ts-jest) there is no such file, and the work runs in the calling thread with the same
// limits, except that time is only checked when the parse yields or ends and memory is not bounded. The specs of the
// child path therefore run against dist/ (built by `pretest`), see parse.int.spec.ts.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { IngestionError, isIngestionFailureReason, OUT_OF_MEMORY } from './ingestion-error.js';
// The parsers themselves (marked, parse5, csv-parse, pdf.js, mammoth) load in the child processes, never here.
import type { ChildReply, ChildRequest, PreparedDocument } from './parse-core.js';
import { checkSize, DEFAULT_PARSE_LIMITS, type ParseLimits } from './parse-limits.js';
import type { ParsedDocument } from './parsed-document.js';
import type { DocumentKind } from './sniff.js';

export type { PreparedDocument } from './parse-core.js';

const CHILD_PATH = fileURLToPath(new URL('./parse-child.js', import.meta.url));

/** True when parses run in child processes (compiled code); false when running from TypeScript sources. */
export const PARSES_IN_CHILD_PROCESS = existsSync(CHILD_PATH);

const PRLIMIT = ['/usr/bin/prlimit', '/bin/prlimit'].find((path) => existsSync(path)) ?? null;
const POOL_SIZE = 2;
const MAX_JOBS_PER_CHILD = 200;
const MEMORY_POLL_MS = 50;
const KERNEL_HEADROOM_MB = 1024;

interface ParseChild {
  readonly process: ChildProcess;
  readonly memoryMb: number;
  jobs: number;
  stderr: string;
}

const idle: ParseChild[] = [];

const startChild = (memoryMb: number): ParseChild => {
  // The JS heap gets part of the budget; the kernel limit covers the rest (Buffers, native memory) too.
  const node = [
    process.execPath,
    `--max-old-space-size=${Math.max(32, Math.floor(memoryMb / 2))}`,
    '--no-warnings',
    CHILD_PATH,
  ];
  // RLIMIT_DATA also counts what V8 reserves at start-up without using (its code range: Node 24 does not start
  // under about 768 MiB), so the kernel's limit is a backstop above the budget; the resident-memory watch below
  // enforces the budget itself.
  const dataLimit = (memoryMb + KERNEL_HEADROOM_MB) * 1024 * 1024;
  const [command, ...args] = PRLIMIT ? [PRLIMIT, `--data=${dataLimit}`, '--', ...node] : node;
  const child: ParseChild = {
    process: spawn(command!, args, {
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      serialization: 'advanced',
      env: {}, // nothing of the api's environment (keys) reaches a parser
    }),
    memoryMb,
    jobs: 0,
    stderr: '',
  };
  child.process.stderr!.on('data', (chunk: Buffer) => {
    child.stderr = (child.stderr + chunk.toString('utf8')).slice(-2000);
  });
  child.process.on('error', () => undefined);
  return child;
};

/** Resident memory of a process in MiB, or null once it is gone. */
const residentMb = (pid: number | undefined): number | null => {
  if (pid === undefined) return null;
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = /^VmRSS:\s+(\d+) kB/m.exec(status)?.[1];
    return kb === undefined ? null : Number(kb) / 1024;
  } catch {
    return null;
  }
};

/** A child at work keeps this process alive; an idle one (its process, IPC channel and stderr pipe) does not. */
const hold = (child: ParseChild, held: boolean): void => {
  const handles = [child.process, child.process.channel, child.process.stderr] as (
    | {
        ref(): void;
        unref(): void;
      }
    | null
    | undefined
  )[];
  for (const handle of handles) {
    if (held) handle?.ref();
    else handle?.unref();
  }
};

const replyToResult = <T>(reply: ChildReply): T => {
  if (reply.ok) return reply.document as T;
  throw new IngestionError(
    isIngestionFailureReason(reply.reason) ? reply.reason : 'parse_failed',
    reply.message,
  );
};

const timedOut = (limits: ParseLimits): IngestionError =>
  new IngestionError('timeout', `parsing took longer than ${limits.timeoutMs} ms`);

const tooLarge = (limits: ParseLimits): IngestionError =>
  new IngestionError('too_large', `parsing needed more than ${limits.maxMemoryMb} MiB of memory`);

const runInChild = <T>(request: ChildRequest): Promise<T> =>
  new Promise<T>((resolve, reject) => {
    const { limits } = request;
    const warm = idle.findIndex((candidate) => candidate.memoryMb === limits.maxMemoryMb);
    const child = warm >= 0 ? idle.splice(warm, 1)[0]! : startChild(limits.maxMemoryMb);
    child.jobs++;
    hold(child, true);
    let settled = false;
    const settle = (outcome: () => void, reusable: boolean): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearInterval(watch);
      child.process.off('message', onMessage);
      child.process.off('exit', onExit);
      if (reusable && idle.length < POOL_SIZE && child.jobs < MAX_JOBS_PER_CHILD) {
        hold(child, false);
        idle.push(child);
      } else child.process.kill('SIGKILL');
      outcome();
    };
    const onMessage = (reply: ChildReply) =>
      settle(
        () => {
          try {
            resolve(replyToResult<T>(reply));
          } catch (error) {
            reject(error);
          }
        },
        reply.ok || reply.reason !== 'too_large',
      );
    const onExit = (code: number | null, signal: NodeJS.Signals | null) =>
      settle(
        () =>
          reject(
            OUT_OF_MEMORY.test(child.stderr)
              ? tooLarge(limits)
              : new IngestionError(
                  'parser_crashed',
                  `the parser stopped without an answer (${signal ?? `exit code ${code}`})`,
                ),
          ),
        false,
      );
    const timer = setTimeout(() => settle(() => reject(timedOut(limits)), false), limits.timeoutMs);
    const watch = setInterval(() => {
      const rss = residentMb(child.process.pid);
      if (rss !== null && rss > limits.maxMemoryMb) settle(() => reject(tooLarge(limits)), false);
    }, MEMORY_POLL_MS);
    child.process.on('message', onMessage);
    child.process.once('exit', onExit);
    // A compact copy: serializing a view of a large buffer (a slice of a request body) would send all of it.
    const bytes = new Uint8Array(request.bytes);
    child.process.send({ ...request, bytes }, (error) => {
      if (error)
        settle(() => reject(new IngestionError('parser_crashed', 'the parser could not be reached')), false);
    });
  });

/** Without a child process: the deadline can fire only when the work yields, so the elapsed time is checked at the end too. */
const runWithDeadline = async <T>(request: ChildRequest): Promise<T> => {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(timedOut(request.limits)), request.limits.timeoutMs);
  });
  try {
    const { answer } = await import('./parse-core.js');
    const reply = await Promise.race([answer(request), deadline]);
    if (performance.now() - started > request.limits.timeoutMs) throw timedOut(request.limits);
    return replyToResult<T>(reply);
  } finally {
    clearTimeout(timer);
  }
};

const withDefaults = (limits: Partial<ParseLimits>): ParseLimits => {
  const given = Object.fromEntries(Object.entries(limits).filter(([, value]) => value !== undefined));
  return { ...DEFAULT_PARSE_LIMITS, ...given };
};

const run = <T>(request: ChildRequest): Promise<T> => {
  checkSize(request.bytes, request.limits);
  return PARSES_IN_CHILD_PROCESS ? runInChild<T>(request) : runWithDeadline<T>(request);
};

/**
 * The text and blocks of `bytes`, a document of `kind` (from `sniffType`). Limits not given take their defaults.
 * Rejects with an IngestionError only.
 */
export const parseDocument = async (
  bytes: Uint8Array,
  kind: DocumentKind,
  limits: Partial<ParseLimits> = {},
): Promise<ParsedDocument> => run<ParsedDocument>({ op: 'parse', bytes, kind, limits: withDefaults(limits) });

/**
 * A stored document's type (sniffed from its bytes, the name breaking ties), text and chunks: all the work on the
 * bytes that ingestion does before embedding, none of it in this process. Rejects with an IngestionError only.
 */
export const prepareDocument = async (
  bytes: Uint8Array,
  fileName: string,
  limits: Partial<ParseLimits> = {},
): Promise<PreparedDocument> =>
  run<PreparedDocument>({ op: 'prepare', bytes, fileName, limits: withDefaults(limits) });
