// Commits the embedded event store's large batches off the event loop: in one worker thread (commit-thread.worker.ts)
// with its own connection to the file, started on the first such batch (a RequestThread: never what holds the process
// open while idle). A batch's COMMIT writes its pages to the log and waits for their fsync: for a few megabytes (forty
// long messages in one turn of the loop) that took 50–450 ms on the bench machine, during which the loop answered
// nothing. The store hands a batch here only when nothing else is being committed, so positions still follow arrival.
// The worker is the compiled `commit-thread.worker.js` beside this module; from the TypeScript sources (ts-jest) there
// is none, and the store commits everything in its own thread.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { RequestThread } from '#kernel';
import type { AppendResult } from '../event-store.port.js';
import {
  errorOf,
  type CommittedBatch,
  type DescribedError,
  type EncodedAppend,
  type Written,
} from './event-commits.js';

const COMPILED_WORKER = new URL('./commit-thread.worker.js', import.meta.url);

/** The compiled worker beside this module, or null (TypeScript sources). */
export const defaultCommitWorker = (): URL | null =>
  existsSync(fileURLToPath(COMPILED_WORKER)) ? COMPILED_WORKER : null;

/** What the thread answers for a batch it committed: its outcomes, refusals described. */
export interface CommitReply {
  readonly outcomes: ({ value: AppendResult } | { described: DescribedError })[];
  readonly written: Written | null;
}

export class CommitThread {
  private readonly thread: RequestThread<readonly EncodedAppend[], CommitReply>;

  constructor(workerUrl: URL, path: string) {
    this.thread = new RequestThread({
      url: workerUrl,
      workerData: { path },
      // A small young generation (what an idle thread costs); the old one as large as a batch needs.
      resourceLimits: { maxYoungGenerationSizeMb: 8 },
      name: "event store's commit thread",
    });
  }

  /**
   * Commits the batch in the thread; resolves once its COMMIT has returned there (durable, as in the store's thread).
   * Rejects when nothing was committed, or the thread ended without saying (the store then commits it itself).
   */
  async commit(batch: readonly EncodedAppend[]): Promise<CommittedBatch> {
    const { outcomes, written } = await this.thread.request(batch);
    return {
      outcomes: outcomes.map((outcome) =>
        'value' in outcome ? outcome : { error: errorOf(outcome.described) },
      ),
      written,
    };
  }

  /** Ends the thread once it has closed its connection (the store closes its own last). */
  close(): Promise<void> {
    return this.thread.close();
  }
}
