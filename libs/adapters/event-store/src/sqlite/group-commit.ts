// Group commit for the embedded event store: the appends that arrive in one turn of the event loop (the requests its
// I/O phase handled) are written together when that turn ends, in one transaction, so they share one COMMIT and its
// sync of the log instead of each paying its own on the loop. Every append keeps its own outcome; each promise settles
// only after the shared COMMIT has returned, so a resolved append is durable as before. A batch may be committed in
// another thread (its commit returns a promise): until it settles, what arrives waits and goes in the next batch, so
// batches commit one at a time, in the order they were formed. A batch holds at most `maxBatchSize` (by the size the
// caller gives each request, at least one request): what is left waits for the next turn of the loop, so a burst of
// large appends is committed in several batches with the loop's other work in between, not in one long task.

/** One append's outcome inside a batch: its result, or the error it alone is refused with. */
export type Outcome<Result> = { readonly value: Result } | { readonly error: unknown };

interface Pending<Request, Result> {
  readonly request: Request;
  readonly resolve: (value: Result) => void;
  readonly reject: (error: unknown) => void;
}

const SETTLED = Promise.resolve();

/** How a batch is bounded: each request's size, and the most one batch holds (a larger request goes alone). */
export interface BatchBound<Request> {
  readonly sizeOf: (request: Request) => number;
  readonly maxBatchSize: number;
}

export class GroupCommit<Request, Result> {
  private queue: Pending<Request, Result>[] = [];
  private scheduled: NodeJS.Immediate | null = null;
  /** The batch being committed in another thread, until it settles. */
  private committing: Promise<void> | null = null;

  /**
   * @param commit writes the requests in order (positions follow arrival) and returns one outcome per request, at once
   *   or once another thread has committed them; a throw (or rejection) means nothing of the batch was committed.
   */
  constructor(
    private readonly commit: (requests: readonly Request[]) => Outcome<Result>[] | Promise<Outcome<Result>[]>,
    private readonly bound: BatchBound<Request>,
  ) {}

  submit(request: Request): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      this.queue.push({ request, resolve, reject });
      // setImmediate, not a microtask: it runs after every I/O callback of this turn, so concurrent requests meet.
      if (!this.committing) this.scheduled ??= setImmediate(() => void this.flush());
    });
  }

  /**
   * Commits the next batch of what is queued; settles once that batch has been committed.
   * What the bound leaves is scheduled for the next turn of the loop.
   */
  flush(): Promise<void> {
    if (this.scheduled) clearImmediate(this.scheduled);
    this.scheduled = null;
    if (this.committing) return this.committing.then(() => this.flush());
    const batch = this.take();
    if (batch.length === 0) return SETTLED;
    let outcomes: Outcome<Result>[] | Promise<Outcome<Result>[]>;
    try {
      outcomes = this.commit(batch.map((pending) => pending.request));
    } catch (error) {
      for (const pending of batch) pending.reject(error);
      this.scheduleRest();
      return SETTLED;
    }
    if (!(outcomes instanceof Promise)) {
      settle(batch, outcomes);
      this.scheduleRest();
      return SETTLED;
    }
    const committing = outcomes.then(
      (settled) => settle(batch, settled),
      (error: unknown) => {
        for (const pending of batch) pending.reject(error);
      },
    );
    this.committing = committing.finally(() => {
      this.committing = null;
      // What arrived meanwhile, and what the bound left, is the next batch.
      this.scheduleRest();
    });
    return this.committing;
  }

  /** Commits everything queued, batch after batch (before the store closes). */
  async drain(): Promise<void> {
    while (this.queue.length > 0 || this.committing) await this.flush();
  }

  private scheduleRest(): void {
    if (this.queue.length > 0) this.scheduled ??= setImmediate(() => void this.flush());
  }

  /** The next batch from the head of the queue: as much as the bound allows, at least one request. */
  private take(): Pending<Request, Result>[] {
    const { sizeOf, maxBatchSize } = this.bound;
    let count = 0;
    let size = 0;
    while (count < this.queue.length) {
      size += sizeOf(this.queue[count]!.request);
      if (count > 0 && size > maxBatchSize) break;
      count += 1;
    }
    return this.queue.splice(0, count);
  }
}

function settle<Request, Result>(
  batch: readonly Pending<Request, Result>[],
  outcomes: readonly Outcome<Result>[],
): void {
  batch.forEach((pending, index) => {
    const outcome = outcomes[index]!;
    if ('error' in outcome) pending.reject(outcome.error);
    else pending.resolve(outcome.value);
  });
}
