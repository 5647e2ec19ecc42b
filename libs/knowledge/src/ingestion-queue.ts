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
  private closed = false;

  constructor(
    private readonly handle: (job: IngestionJob, attempt: number) => Promise<void>,
    private readonly giveUp: (job: IngestionJob, error: unknown) => Promise<void>,
    private readonly options: IngestionQueueOptions,
  ) {}

  offer(job: IngestionJob): void {
    if (this.closed) return;
    const queued = this.waiting.get(job.documentId);
    if (!queued || queued.version <= job.version) this.waiting.set(job.documentId, job);
    this.pump();
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
  }

  private pump(): void {
    for (const [documentId, job] of this.waiting) {
      if (this.running.size >= this.options.concurrency) return;
      if (this.running.has(documentId)) continue;
      this.waiting.delete(documentId);
      this.running.add(documentId);
      void this.run(job).finally(() => {
        this.running.delete(documentId);
        if (this.size === 0) for (const resolve of this.idle.splice(0)) resolve();
        this.pump();
      });
    }
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
