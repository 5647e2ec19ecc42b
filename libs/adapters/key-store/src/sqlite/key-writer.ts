// Creates a file-backed SqliteKeyStore's keys off the event loop: in one worker thread (key-writer.worker.ts), started
// on the first key created and unreferenced while it has nothing to do, so it never holds the process open. A request
// resolves once its transaction has committed (durably: the same pragmas as the store's own connection). The worker
// is the compiled `key-writer.worker.js` beside this module; from the TypeScript sources (ts-jest) there is none, and
// the store then commits in its own thread, as it did before.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { NewKeyRow } from './key-database.js';

const COMPILED_WORKER = new URL('./key-writer.worker.js', import.meta.url);

/** The compiled worker beside this module, or null (TypeScript sources). */
export const defaultKeyWriterWorker = (): URL | null =>
  existsSync(fileURLToPath(COMPILED_WORKER)) ? COMPILED_WORKER : null;

/** How long a closing worker may take to close its connection before it is terminated. */
const CLOSE_WAIT_MS = 2_000;

/** The worker handles a few small rows at a time: a small heap. */
const WORKER_LIMITS = { maxOldGenerationSizeMb: 32, maxYoungGenerationSizeMb: 4 } as const;

interface Pending {
  readonly resolve: (existing: string[]) => void;
  readonly reject: (error: Error) => void;
}

export class KeyWriter {
  private worker: Worker | null = null;
  private readonly pending = new Map<number, Pending>();
  private readonly inFlight = new Set<Promise<unknown>>();
  private nextId = 0;
  private closed = false;

  constructor(
    private readonly workerUrl: URL,
    private readonly path: string,
  ) {}

  /**
   * Creates the keys (those that exist already are left as they are) in one commit, in the worker; resolves with the
   * ids of those that existed.
   */
  insert(rows: readonly NewKeyRow[], now: number): Promise<string[]> {
    if (this.closed) return Promise.reject(new Error('The key store is closed'));
    const worker = this.worker ?? this.start();
    const id = this.nextId++;
    const done = new Promise<string[]>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      if (this.pending.size === 1) worker.ref();
      worker.postMessage({ id, rows, now });
    });
    this.inFlight.add(done);
    const forget = () => this.inFlight.delete(done);
    done.then(forget, forget);
    return done;
  }

  /**
   * Waits for the requests under way, then ends the worker: it closes its connection first (so the store's own close,
   * the last, removes the log), or is terminated if it has not ended within CLOSE_WAIT_MS.
   */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.allSettled([...this.inFlight]);
    const worker = this.worker;
    this.worker = null;
    if (!worker) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => void worker.terminate().then(() => resolve()), CLOSE_WAIT_MS);
      // Never what keeps a process alive: one that ends without it ends the thread too.
      timer.unref();
      worker.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
      worker.postMessage({ close: true });
    });
  }

  private start(): Worker {
    const worker = new Worker(this.workerUrl, {
      workerData: { path: this.path },
      resourceLimits: WORKER_LIMITS,
    });
    worker.unref();
    type Reply = { id: number; ok: boolean; existing?: string[]; message?: string };
    worker.on('message', ({ id, ok, existing, message }: Reply) => {
      const waiting = this.pending.get(id);
      if (!waiting) return;
      this.pending.delete(id);
      if (this.pending.size === 0) worker.unref();
      if (ok) waiting.resolve(existing ?? []);
      else waiting.reject(new Error(message));
    });
    // A worker that fails or ends fails what it had under way (nothing was obtained); the next request starts another.
    const fail = (error: Error) => {
      if (this.worker === worker) this.worker = null;
      const failed = [...this.pending.values()];
      this.pending.clear();
      for (const waiting of failed) waiting.reject(error);
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`The key writer thread ended (exit code ${code})`)));
    this.worker = worker;
    return worker;
  }
}
