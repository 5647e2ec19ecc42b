// Runs the BM25 leg of a large index's searches in one worker thread (bm25-thread.worker.ts), on its own connection
// to the same file, while the event loop runs the vector leg (and whatever else waits: a turn's user message is
// written meanwhile). FTS5 answers synchronously, so on the event loop the two legs of a hybrid search add up; here
// they overlap: on the bench's 100,000 chunks a hybrid search took 24 ms with both legs on the event loop and 16 ms
// with BM25 in the thread (10,000: 4.2 → 3.6 ms).
//
// The thread starts on the first search of a large index (which, like every search until the thread says it is
// ready, ranks BM25 in the caller's thread: no search waits for a thread to start) and is kept. Its leg reads its own
// snapshot: every chunk a search returns is read in the caller's snapshot after both legs, so a chunk deleted
// meanwhile is never returned. A thread that fails fails what it had under way (the caller ranks again in its own
// thread) and the next large search starts another. The worker is the compiled `bm25-thread.worker.js` beside this
// module; from the TypeScript sources (ts-jest) there is none, and every search ranks BM25 in its own thread.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from 'node:worker_threads';

const COMPILED_WORKER = new URL('./bm25-thread.worker.js', import.meta.url);

/** The compiled worker beside this module, or null (TypeScript sources). */
export const defaultBm25Worker = (): URL | null =>
  existsSync(fileURLToPath(COMPILED_WORKER)) ? COMPILED_WORKER : null;

/**
 * The thread holds one connection, FTS5's pages and the in-memory postings (bm25-memory.ts): their typed arrays are
 * outside the heap; their words, the map of them and the tokens remembered for non-ASCII words are in it (about 15
 * MB for 100,000 chunks).
 */
const WORKER_LIMITS = { maxOldGenerationSizeMb: 128, maxYoungGenerationSizeMb: 16 } as const;

/** The in-memory postings' settings the thread runs with (SqliteSearchIndexOptions.bm25Memory). */
export interface Bm25ThreadMemory {
  readonly minChunks?: number;
  readonly maxBytes?: number;
}

/** How long close() waits for the thread to save its postings (100,000 chunks: ~60 MB, well under a second). */
const CLOSE_WAIT_MS = 5_000;

export interface Bm25Request {
  readonly index: string;
  readonly text: string;
  readonly ownerIds: readonly string[];
  readonly tagIds: readonly string[] | null;
  readonly candidates: number;
}

/** What the thread says on its own port: it is ready, or it has closed. */
export type Bm25Reply = { readonly ready: true } | { readonly closed: true };

/** A request's answer, on the port of answers (workerData.answers). */
export type Bm25Answer =
  { readonly id: number; readonly ids: readonly number[] } | { readonly id: number; readonly error: string };

interface Pending {
  readonly resolve: (ids: readonly number[]) => void;
  readonly reject: (error: Error) => void;
}

export class Bm25Thread {
  private worker: Worker | null = null;
  /**
   * Where the thread answers requests: a port of their own, so that a search can take an answer that has arrived
   * while its vector leg ran (settleArrived) without waiting for the event loop to deliver it.
   */
  private answers: MessagePort | null = null;
  private ready = false;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  private closed = false;

  constructor(
    private readonly workerUrl: URL,
    private readonly path: string,
    private readonly splitMinChunks: number,
    private readonly memory: Bm25ThreadMemory | false,
  ) {}

  /** True when the thread takes requests now; otherwise it is started (unless it is starting) and false. */
  available(): boolean {
    if (this.closed) return false;
    if (!this.worker) this.start();
    return this.ready;
  }

  /** Whether the thread runs and takes requests. */
  get isReady(): boolean {
    return this.ready;
  }

  /** The chunk rowids best first by bm25(), ranked in the thread (see SqliteSearchIndex.bm25Ranks). */
  rank(request: Bm25Request): Promise<readonly number[]> {
    const worker = this.worker;
    if (!worker || !this.ready) return Promise.reject(new Error('The BM25 thread is not running'));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      if (this.pending.size === 1) {
        worker.ref();
        this.answers?.ref();
      }
      worker.postMessage({ id, request });
    });
  }

  /**
   * Settles the requests whose answers have arrived, now: a search that ranked its vector leg meanwhile goes on at
   * once instead of after the loop's next poll (its other work queued, ~0.7 ms of a turn at 10,000 chunks).
   * Returns how many it settled.
   */
  settleArrived(): number {
    let settled = 0;
    for (let got = this.received(); got; got = this.received()) {
      this.settle(got.message as Bm25Answer);
      settled++;
    }
    return settled;
  }

  private received(): { message: unknown } | undefined {
    return this.answers ? receiveMessageOnPort(this.answers) : undefined;
  }

  private settle(answer: Bm25Answer): void {
    const waiting = this.pending.get(answer.id);
    if (!waiting) return;
    this.pending.delete(answer.id);
    if (this.pending.size === 0) {
      this.worker?.unref();
      this.answers?.unref();
    }
    if ('ids' in answer) waiting.resolve(answer.ids);
    else waiting.reject(new Error(answer.error));
  }

  /** Lets the thread save its postings (bm25-snapshot.ts) for up to CLOSE_WAIT_MS, then ends it. */
  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    this.worker = null;
    this.ready = false;
    if (!worker) return;
    worker.ref();
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, CLOSE_WAIT_MS);
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      worker.on('message', (reply: Bm25Reply) => {
        if ('closed' in reply) done();
      });
      worker.once('exit', done);
      worker.postMessage({ close: true });
    });
    await worker.terminate();
    this.answers?.close();
    this.answers = null;
  }

  private start(): void {
    const { port1: answers, port2 } = new MessageChannel();
    const worker = new Worker(this.workerUrl, {
      workerData: {
        path: this.path,
        splitMinChunks: this.splitMinChunks,
        memory: this.memory,
        answers: port2,
      },
      transferList: [port2],
      resourceLimits: WORKER_LIMITS,
    });
    worker.unref();
    this.worker = worker;
    this.answers?.close();
    this.answers = answers;
    this.ready = false;
    answers.on('message', (answer: Bm25Answer) => this.settle(answer));
    answers.unref();
    worker.on('message', (reply: Bm25Reply) => {
      if ('ready' in reply && this.worker === worker) this.ready = true;
    });
    const fail = (error: Error) => {
      if (this.worker === worker) {
        this.worker = null;
        this.ready = false;
        answers.close();
      }
      const failed = [...this.pending.values()];
      this.pending.clear();
      for (const waiting of failed) waiting.reject(error);
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`The BM25 thread ended (exit code ${code})`)));
  }
}
