// Runs the offline models' heavy work off the api's event loop. A task over INLINE_CHARS characters of text goes to
// one of a few worker threads (started on first use, unreferenced while idle so they never hold the process open);
// smaller ones run here, where a thread hop would cost more than the work. Tokenization is linear (tokenizer.ts), so
// a worker is busy for tens of milliseconds per megabyte; the point is that /health and every other client are not.
//
// The worker is the compiled `offline-worker.js` beside this module; from the TypeScript sources (ts-jest) there is
// none and every task runs in this thread. A worker imports the module that registered the offline chat model's
// responders here (`offline-responder.ts`) before its first task.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { offlineSetupModule } from './offline-responder.js';
import { runOfflineTask, taskSize, type OfflineTask } from './offline-tasks.js';

export const INLINE_CHARS = 16_384;
const POOL_SIZE = 2;
const WORKER_URL = new URL('./offline-worker.js', import.meta.url);
const HAS_WORKER = existsSync(fileURLToPath(WORKER_URL));

interface PooledWorker {
  readonly worker: Worker;
  busy: number;
  idleTimer?: NodeJS.Timeout;
}

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
    worker: new Worker(WORKER_URL, { workerData: { setup: offlineSetupModule() } }),
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

/** The result of `task`, computed in a worker thread when it is big, else in this thread. */
export const runOffline = <T>(task: OfflineTask): Promise<T> => {
  if (!HAS_WORKER || taskSize(task) <= INLINE_CHARS) {
    try {
      return Promise.resolve(runOfflineTask(task) as T);
    } catch (error) {
      return Promise.reject(error as Error);
    }
  }
  const pooled = leastBusy();
  const id = nextId++;
  clearTimeout(pooled.idleTimer);
  if (pooled.busy++ === 0) pooled.worker.ref();
  return new Promise<T>((resolve, reject) => {
    pending.set(id, { resolve: resolve as (value: unknown) => void, reject, on: pooled });
    pooled.worker.postMessage({ id, task });
  });
};
