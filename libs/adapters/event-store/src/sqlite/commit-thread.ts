// Commits the embedded event store's large batches off the event loop: in one worker thread (commit-thread.worker.ts)
// with its own connection to the file, started on the first such batch and unreferenced while it has nothing to do.
// A batch's COMMIT writes its pages to the log and waits for their fsync: for a few megabytes (forty long messages in
// one turn of the loop) that took 50–450 ms on the bench machine, during which the loop answered nothing. The store
// hands a batch here only when nothing else is being committed, so positions still follow arrival. The worker is the
// compiled `commit-thread.worker.js` beside this module; from the TypeScript sources (ts-jest) there is none, and the
// store commits everything in its own thread.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { EncodedAppend, CommittedBatch, DescribedError, Written } from './event-commits.js';
import { errorOf } from './event-commits.js';
import type { AppendResult } from '../event-store.port.js';

const COMPILED_WORKER = new URL('./commit-thread.worker.js', import.meta.url);

/** The compiled worker beside this module, or null (TypeScript sources). */
export const defaultCommitWorker = (): URL | null =>
  existsSync(fileURLToPath(COMPILED_WORKER)) ? COMPILED_WORKER : null;

/** How long a closing worker may take to close its connection before it is terminated. */
const CLOSE_WAIT_MS = 5_000;

/** A small young generation (its size is what an idle thread costs); the old one as large as a batch needs. */
const WORKER_LIMITS = { maxYoungGenerationSizeMb: 8 } as const;

/** What the worker answers for a batch: its outcomes (refusals described), or why nothing was committed. */
export type CommitReply =
  | {
      readonly id: number;
      readonly ok: true;
      readonly outcomes: ({ value: AppendResult } | { described: DescribedError })[];
      readonly written: Written | null;
    }
  | { readonly id: number; readonly ok: false; readonly message: string };

interface Pending {
  readonly resolve: (batch: CommittedBatch) => void;
  readonly reject: (error: Error) => void;
}

export class CommitThread {
  private worker: Worker | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;

  constructor(
    private readonly workerUrl: URL,
    private readonly path: string,
  ) {}

  /** Commits the batch in the worker; resolves once its COMMIT has returned there (durable, as in the store's thread). */
  commit(batch: readonly EncodedAppend[]): Promise<CommittedBatch> {
    const worker = this.worker ?? this.start();
    const id = this.nextId++;
    return new Promise<CommittedBatch>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      if (this.pending.size === 1) worker.ref();
      worker.postMessage({ id, batch });
    });
  }

  /** Ends the worker once it has closed its connection (the store closes its own last), or terminates it. */
  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    if (!worker) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => void worker.terminate().then(() => resolve()), CLOSE_WAIT_MS);
      timer.unref();
      worker.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
      // Held open until the thread has closed its connection: a process ending meanwhile would leave its log behind.
      worker.ref();
      worker.postMessage({ close: true });
    });
  }

  private start(): Worker {
    const worker = new Worker(this.workerUrl, {
      workerData: { path: this.path },
      resourceLimits: WORKER_LIMITS,
    });
    worker.unref();
    worker.on('message', (reply: CommitReply) => {
      const waiting = this.pending.get(reply.id);
      if (!waiting) return;
      this.pending.delete(reply.id);
      if (this.pending.size === 0) worker.unref();
      if (!reply.ok) {
        waiting.reject(new Error(reply.message));
        return;
      }
      waiting.resolve({
        outcomes: reply.outcomes.map((outcome) =>
          'value' in outcome ? outcome : { error: errorOf(outcome.described) },
        ),
        written: reply.written,
      });
    });
    // A worker that fails or ends fails what it had under way (the store commits it in its own thread instead); the
    // next batch starts another.
    const fail = (error: Error) => {
      if (this.worker === worker) this.worker = null;
      const failed = [...this.pending.values()];
      this.pending.clear();
      for (const waiting of failed) waiting.reject(error);
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`The event store's commit thread ended (exit code ${code})`)));
    this.worker = worker;
    return worker;
  }
}
