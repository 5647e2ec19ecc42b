// A worker thread that answers requests, one message each way: started on the first request, referenced only while a
// request is under way (an idle thread never holds the process open), and told to close before it is let go (it
// closes what it holds first: a database's last connection removes its log). A request the thread refuses rejects
// with its message; a thread that fails or ends rejects what it had under way, and the next request starts another.
// The thread's side is `answerRequests`.
import { Worker, type ResourceLimits } from 'node:worker_threads';

/** How long a closing thread may take to close what it holds before it is terminated. */
const CLOSE_WAIT_MS = 5_000;

export interface RequestThreadOptions {
  /** The compiled worker module. */
  readonly url: URL;
  readonly workerData: unknown;
  readonly resourceLimits?: ResourceLimits;
  /** What the thread is, for the error of a thread that ended. */
  readonly name: string;
}

/** A request's message (`id` added here) and the thread's answer to it. */
type Answer<Reply> = { id: number; ok: true; reply: Reply } | { id: number; ok: false; message: string };

interface Pending<Reply> {
  readonly resolve: (reply: Reply) => void;
  readonly reject: (error: Error) => void;
}

export class RequestThread<Request, Reply> {
  private worker: Worker | null = null;
  private readonly pending = new Map<number, Pending<Reply>>();
  private nextId = 0;
  private closed = false;

  constructor(private readonly options: RequestThreadOptions) {}

  request(request: Request): Promise<Reply> {
    if (this.closed) return Promise.reject(new Error(`The ${this.options.name} is closed`));
    const worker = this.worker ?? this.start();
    const id = this.nextId++;
    return new Promise<Reply>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      if (this.pending.size === 1) worker.ref();
      worker.postMessage({ id, request });
    });
  }

  /**
   * Ends the thread once it has answered the requests under way and closed what it holds (or terminates it after
   * CLOSE_WAIT_MS); later requests are refused.
   */
  async close(): Promise<void> {
    this.closed = true;
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
      // Held open until the thread has ended: a process ending meanwhile would cut its close short.
      worker.ref();
      worker.postMessage({ close: true });
    });
  }

  private start(): Worker {
    const { url, workerData, resourceLimits, name } = this.options;
    const worker = new Worker(url, { workerData, ...(resourceLimits ? { resourceLimits } : {}) });
    worker.unref();
    worker.on('message', (answer: Answer<Reply>) => {
      const waiting = this.pending.get(answer.id);
      if (!waiting) return;
      this.pending.delete(answer.id);
      if (this.pending.size === 0) worker.unref();
      if (answer.ok) waiting.resolve(answer.reply);
      else waiting.reject(new Error(answer.message));
    });
    const fail = (error: Error) => {
      if (this.worker === worker) this.worker = null;
      const failed = [...this.pending.values()];
      this.pending.clear();
      for (const waiting of failed) waiting.reject(error);
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`The ${name} ended (exit code ${code})`)));
    this.worker = worker;
    return worker;
  }
}
