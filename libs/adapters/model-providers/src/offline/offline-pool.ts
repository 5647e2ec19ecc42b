// Runs the offline models' heavy work off the api's event loop. A task over INLINE_CHARS characters of text goes to
// one of a few worker threads (started on first use, unreferenced while idle so they never hold the process open);
// smaller ones run here, where a thread hop would cost more than the work, except while this thread has not loaded
// the tokenizer's encoder and a worker is running: loading the encoder here holds the event loop for ≈ 0.3 s, which
// the first small task of a burst of big turns paid while /health waited; with no worker running (light use) it is
// loaded here once, as starting a worker would cost the task more. Tokenization is linear (tokenizer.ts), so
// a worker is busy for tens of milliseconds per megabyte; the point is that /health and every other client are not.
//
// The worker is the compiled `offline-worker.js` beside this module; from the TypeScript sources (ts-jest) there is
// none and every task runs in this thread. A worker imports the module that registered the offline chat model's
// responders here (`offline-responder.ts`) before its first task.
//
// Other contexts hand their own heavy pure functions to the same pool with `runPooled` (a compiled module of theirs
// and the name of an exported function; conversations plan compaction and count a history's tokens this way), so
// the api has one bounded set of worker threads: at most POOL_SIZE (one core fewer than the machine has, so the event
// loop keeps one; at least one, at most two), and a task beyond waits in a worker's queue instead of starting
// another thread.
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { offlineSetupModule } from './offline-responder.js';
import { runOfflineTask, taskSize, type OfflineTask, type PooledCall } from './offline-tasks.js';
import { encoderLoaded } from '#tokenizer';

export const INLINE_CHARS = 16_384;
/**
 * Worker threads at most: the cores but the event loop's, between one and two. Each worker loads the tokenizer's
 * tables (~65 MB) and keeps a heap of its own, and on two cores a second worker only competes with the event loop:
 * 50 concurrent 200,000-character prompts peaked ~87 MB higher with two workers than with one
 * (docs/security.md, "The red-team rerun").
 */
export const POOL_SIZE = Math.max(1, Math.min(2, availableParallelism() - 1));
const WORKER_URL = new URL('./offline-worker.js', import.meta.url);
const HAS_WORKER = existsSync(fileURLToPath(WORKER_URL));
/** The compiled tree the worker may load modules from (dist/): a pooled call names a module inside it. */
const DIST_ROOT = new URL('../../../../../', import.meta.url).href;

const compiledModules = new Map<string, boolean>();
/** Whether `module` is a compiled module inside dist/ (checked once per module): only such a module is loaded. */
const compiled = (module: string): boolean => {
  let known = compiledModules.get(module);
  if (known === undefined) {
    known = module.startsWith(DIST_ROOT) && existsSync(fileURLToPath(module));
    compiledModules.set(module, known);
  }
  return known;
};

/** Tasks run so far, by operation and by where they ran: what /metrics shows as `offline_pool_tasks_total`. */
const ran = new Map<string, { worker: number; inline: number }>();
const count = (op: string, where: 'worker' | 'inline'): void => {
  const counts = ran.get(op) ?? { worker: 0, inline: 0 };
  counts[where]++;
  ran.set(op, counts);
};

/** Tasks run so far by operation: how many in a worker thread and how many inline (small ones). */
export const offlinePoolStats = (): ReadonlyMap<
  string,
  { readonly worker: number; readonly inline: number }
> => ran;

interface PooledWorker {
  readonly worker: Worker;
  busy: number;
  idleTimer?: NodeJS.Timeout;
}

/**
 * A worker's heap is bounded. Unbounded, V8 let each worker's heap grow with the garbage of a burst of big tasks (50
 * concurrent 200,000-character prompts: +170 MB of RSS in two workers, measured), and held it until the worker
 * retired. At 128 MB of old generation and a young generation of 8 MB, the biggest tasks the routes accept still fit
 * (counting and answering 1,000,000 characters of mixed, CJK or random text; four 2,100,000-character message lists
 * at once on one worker), and the burst's peak RSS growth fell from +251–521 to +182–250 MB
 * (docs/security.md, "The red-team rerun"). A task that outgrows it ends the worker: its tasks fail, and the next task starts a new one.
 */
export const WORKER_LIMITS = { maxOldGenerationSizeMb: 128, maxYoungGenerationSizeMb: 8 } as const;

/**
 * A worker idle this long is ended: its heap (grown by a burst of big inputs, and the tokenizer's tables) goes back to
 * the system instead of staying in the api's resident memory; the next big task starts a new one.
 */
const IDLE_MS = 10_000;

const retire = (pooled: PooledWorker): void => {
  const at = workers.indexOf(pooled);
  if (at >= 0) workers.splice(at, 1);
  void pooled.worker.terminate();
};

type Pending = { resolve: (value: unknown) => void; reject: (error: Error) => void; on: PooledWorker };

const workers: PooledWorker[] = [];
const pending = new Map<number, Pending>();
let nextId = 0;

const start = (): PooledWorker => {
  const pooled: PooledWorker = {
    worker: new Worker(WORKER_URL, {
      workerData: { setup: offlineSetupModule() },
      resourceLimits: WORKER_LIMITS,
    }),
    busy: 0,
  };
  pooled.worker.unref();
  pooled.worker.on('message', (reply: { id: number; ok: boolean; result?: unknown; message?: string }) => {
    const waiting = pending.get(reply.id);
    if (!waiting) return;
    pending.delete(reply.id);
    if (--pooled.busy === 0) {
      pooled.worker.unref();
      pooled.idleTimer = setTimeout(() => retire(pooled), IDLE_MS);
      pooled.idleTimer.unref();
    }
    if (reply.ok) waiting.resolve(reply.result);
    else waiting.reject(new Error(reply.message));
  });
  pooled.worker.on('error', (error) => {
    // A worker that died takes its tasks with it: they fail, and the next task starts a new worker.
    const at = workers.indexOf(pooled);
    if (at >= 0) workers.splice(at, 1);
    for (const [id, waiting] of pending)
      if (waiting.on === pooled) {
        pending.delete(id);
        waiting.reject(error);
      }
  });
  return pooled;
};

const leastBusy = (): PooledWorker => {
  if (workers.length < POOL_SIZE && !workers.some((pooled) => pooled.busy === 0)) workers.push(start());
  return workers.reduce((best, pooled) => (pooled.busy < best.busy ? pooled : best));
};

const inThisThread = <T>(op: string, run: () => T): Promise<T> => {
  count(op, 'inline');
  try {
    return Promise.resolve(run());
  } catch (error) {
    return Promise.reject(error as Error);
  }
};

/** Whether a small task runs in this thread: it has the encoder, or no worker runs that could take the task. */
const inlineNow = (): boolean => encoderLoaded() || workers.length === 0;

/** The result of `task`, computed in a worker thread when it is big, else in this thread. */
export const runOffline = <T>(task: OfflineTask): Promise<T> => {
  if (!HAS_WORKER || (taskSize(task, INLINE_CHARS) <= INLINE_CHARS && inlineNow()))
    return inThisThread(task.op, () => runOfflineTask(task) as T);
  return post<T>(task.op, task);
};

export interface PooledFunction<A extends readonly unknown[], T> {
  /** The compiled module exporting the function (`new URL('./x.js', import.meta.url)`). */
  readonly module: URL;
  /** Its export's name; the function is pure (data in, data out: what structured clone carries). */
  readonly name: string;
  /** The same function, for small inputs and for the TypeScript sources (no compiled module to load). */
  readonly inline: (...args: A) => T;
}

/**
 * `fn(...args)` in a worker thread when `size` (characters of text the call works on) is over INLINE_CHARS (or a
 * small task finds a worker running and no encoder here) and the compiled module exists; else in this thread: a context's own heavy pure work, kept off the event loop by the same
 * bounded pool.
 */
export const runPooled = <A extends readonly unknown[], T>(
  fn: PooledFunction<A, T>,
  args: A,
  size: number,
): Promise<T> => {
  const module = fn.module.href;
  if (!HAS_WORKER || (size <= INLINE_CHARS && inlineNow()) || !compiled(module))
    return inThisThread(fn.name, () => fn.inline(...args));
  const call: PooledCall = { op: 'call', module, name: fn.name, args };
  return post<T>(fn.name, call);
};

const post = <T>(op: string, task: OfflineTask | PooledCall): Promise<T> => {
  count(op, 'worker');
  const pooled = leastBusy();
  const id = nextId++;
  clearTimeout(pooled.idleTimer);
  if (pooled.busy++ === 0) pooled.worker.ref();
  return new Promise<T>((resolve, reject) => {
    pending.set(id, { resolve: resolve as (value: unknown) => void, reject, on: pooled });
    pooled.worker.postMessage({ id, task });
  });
};
