// Creates a file-backed SqliteKeyStore's keys off the event loop: in one worker thread (key-writer.worker.ts), started
// on the first key created (a RequestThread: never what holds the process open while idle). A request resolves once
// its transaction has committed (durably: the same pragmas as the store's own connection). The worker is the compiled
// `key-writer.worker.js` beside this module; from the TypeScript sources (ts-jest) there is none, and the store then
// commits in its own thread, as it did before.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { RequestThread } from '#kernel';
import type { NewKeyRow } from './key-database.js';

const COMPILED_WORKER = new URL('./key-writer.worker.js', import.meta.url);

/** The compiled worker beside this module, or null (TypeScript sources). */
export const defaultKeyWriterWorker = (): URL | null =>
  existsSync(fileURLToPath(COMPILED_WORKER)) ? COMPILED_WORKER : null;

/** What the thread is asked: keys to create in one commit. */
export interface KeyWrite {
  readonly rows: readonly NewKeyRow[];
  readonly now: number;
}

export class KeyWriter {
  private readonly thread: RequestThread<KeyWrite, string[]>;

  constructor(workerUrl: URL, path: string) {
    this.thread = new RequestThread({
      url: workerUrl,
      workerData: { path },
      // The worker handles a few small rows at a time: a small heap.
      resourceLimits: { maxOldGenerationSizeMb: 32, maxYoungGenerationSizeMb: 4 },
      name: "key store's writer thread",
    });
  }

  /**
   * Creates the keys (those that exist already are left as they are) in one commit, in the worker; resolves with the
   * ids of those that existed.
   */
  insert(rows: readonly NewKeyRow[], now: number): Promise<string[]> {
    return this.thread.request({ rows, now });
  }

  /**
   * Waits for the requests under way, then ends the worker: it closes its connection first (so the store's own close,
   * the last, removes the log), or is terminated if it has not ended in time.
   */
  close(): Promise<void> {
    return this.thread.close();
  }
}
