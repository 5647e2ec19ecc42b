// The embedded ingestion queue: jobs run in this process with bounded concurrency, one job per document at a time
// (a newer version replaces a queued older one), and a failing job is retried with backoff before it is given up.
// Nothing here is durable on purpose: the ingestion process manager keeps pending work in its checkpointed state
// and re-offers it after a restart (scaled out, Kafka carries the jobs instead).
export interface IngestionJob {
  readonly documentId: string;
  readonly version: number;
  readonly force: boolean;
}

export interface IngestionQueueOptions {
  readonly concurrency: number;
  readonly attempts: number;
  readonly backoffMs: number;
}

export class IngestionQueue {
  private readonly waiting = new Map<string, IngestionJob>();
  private readonly running = new Set<string>();
  private readonly idle: (() => void)[] = [];
  /** Callers waiting for a document's job to be worked through, with the version they offered. */
  private readonly waiters = new Map<string, { version: number; resolve: () => void }[]>();
  private closed = false;

  constructor(
    private readonly handle: (job: IngestionJob, attempt: number) => Promise<void>,
    private readonly giveUp: (job: IngestionJob, error: unknown) => Promise<void>,
    private readonly options: IngestionQueueOptions,
  ) {}

  /**
   * Queues a job; resolves once it (or a newer version of the document's job) has been worked through, or the queue
   * closed. Callers that distribute jobs (Kafka) wait on it before acknowledging a message.
   */
  offer(job: IngestionJob): Promise<void> {
    if (this.closed) return Promise.resolve();
    const done = new Promise<void>((resolve) => {
      const waiting = this.waiters.get(job.documentId) ?? [];
      waiting.push({ version: job.version, resolve });
      this.waiters.set(job.documentId, waiting);
    });
    const queued = this.waiting.get(job.documentId);
    if (!queued || queued.version <= job.version) this.waiting.set(job.documentId, job);
    this.pump();
    return done;
  }

  /** Jobs waiting or running. */
  get size(): number {
    return this.waiting.size + this.running.size;
  }

  /** Resolves when nothing is waiting or running. */
  drained(): Promise<void> {
    return this.size === 0 ? Promise.resolve() : new Promise((resolve) => this.idle.push(resolve));
  }

  async close(): Promise<void> {
    this.closed = true;
    this.waiting.clear();
    await this.drained();
    for (const waiting of this.waiters.values()) for (const waiter of waiting) waiter.resolve();
    this.waiters.clear();
  }

  private pump(): void {
    for (const [documentId, job] of this.waiting) {
      if (this.running.size >= this.options.concurrency) return;
      if (this.running.has(documentId)) continue;
      this.waiting.delete(documentId);
      this.running.add(documentId);
      void this.run(job).finally(() => {
        this.running.delete(documentId);
        this.settle(job);
        if (this.size === 0) for (const resolve of this.idle.splice(0)) resolve();
        this.pump();
      });
    }
  }

  /** Releases the callers waiting for this version of the document (or an older one). */
  private settle(job: IngestionJob): void {
    const waiting = this.waiters.get(job.documentId);
    if (!waiting) return;
    const still = waiting.filter((waiter) => waiter.version > job.version);
    for (const waiter of waiting) if (waiter.version <= job.version) waiter.resolve();
    if (still.length > 0) this.waiters.set(job.documentId, still);
    else this.waiters.delete(job.documentId);
  }

  private async run(job: IngestionJob): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.handle(job, attempt);
        return;
      } catch (error) {
        if (attempt >= this.options.attempts || this.closed) {
          await this.giveUp(job, error).catch(() => undefined);
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, this.options.backoffMs * 2 ** (attempt - 1)));
      }
    }
  }
}
