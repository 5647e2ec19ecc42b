// Group commit for the embedded event store: the appends that arrive in one turn of the event loop (the requests its
// I/O phase handled) are written together when that turn ends, in one transaction, so they share one COMMIT and its
// sync of the log instead of each paying its own on the loop. Every append keeps its own outcome; each promise settles
// only after the shared COMMIT has returned, so a resolved append is durable as before.

/** One append's outcome inside a batch: its result, or the error it alone is refused with. */
export type Outcome<Result> = { readonly value: Result } | { readonly error: unknown };

interface Pending<Request, Result> {
  readonly request: Request;
  readonly resolve: (value: Result) => void;
  readonly reject: (error: unknown) => void;
}

export class GroupCommit<Request, Result> {
  private queue: Pending<Request, Result>[] = [];
  private scheduled: NodeJS.Immediate | null = null;

  /**
   * @param commit writes the requests in order (positions follow arrival) and returns one outcome per request; a throw
   *   means nothing of the batch was committed.
   */
  constructor(private readonly commit: (requests: readonly Request[]) => Outcome<Result>[]) {}

  submit(request: Request): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      this.queue.push({ request, resolve, reject });
      // setImmediate, not a microtask: it runs after every I/O callback of this turn, so concurrent requests meet.
      this.scheduled ??= setImmediate(() => this.flush());
    });
  }

  /** Commits what is queued now (also before the store closes). */
  flush(): void {
    if (this.scheduled) clearImmediate(this.scheduled);
    this.scheduled = null;
    const batch = this.queue;
    this.queue = [];
    if (batch.length === 0) return;
    let outcomes: Outcome<Result>[];
    try {
      outcomes = this.commit(batch.map((pending) => pending.request));
    } catch (error) {
      for (const pending of batch) pending.reject(error);
      return;
    }
    batch.forEach((pending, index) => {
      const outcome = outcomes[index]!;
      if ('error' in outcome) pending.reject(outcome.error);
      else pending.resolve(outcome.value);
    });
  }
}
