// How many sandbox runs this process lets happen at once: at most `global` in all, at most `perUser` for one user.
// Runs past either wait in a queue, first come first served among those that may start (a user at their own limit
// does not hold up the others), for at most `maxWaitMs`; a queue of `maxQueued` is full and refuses at once.
import { PlatformError } from '#kernel';

export interface RunSlotLimits {
  readonly global: number;
  readonly perUser: number;
  readonly maxQueued: number;
  readonly maxWaitMs: number;
}

/** The run could not get a slot: the queue is full, or the wait ran out. */
export class RunSlotsBusyError extends PlatformError {
  constructor(message: string) {
    super('rate_limited', 'code_execution_busy', message);
  }
}

interface Waiter {
  readonly user: string;
  readonly grant: () => void;
}

export class RunSlots {
  private running = 0;
  private readonly perUser = new Map<string, number>();
  private readonly waiting: Waiter[] = [];

  constructor(private readonly limits: RunSlotLimits) {}

  /** Runs currently holding a slot, and runs waiting for one. */
  get load(): { readonly running: number; readonly queued: number } {
    return { running: this.running, queued: this.waiting.length };
  }

  /** Runs `work` once a slot is free for `user`; RunSlotsBusyError when the queue is full or the wait runs out. */
  async withSlot<T>(user: string, signal: AbortSignal, work: () => Promise<T>): Promise<T> {
    await this.acquire(user, signal);
    try {
      return await work();
    } finally {
      this.release(user);
    }
  }

  private mayStart(user: string): boolean {
    return this.running < this.limits.global && (this.perUser.get(user) ?? 0) < this.limits.perUser;
  }

  private take(user: string): void {
    this.running += 1;
    this.perUser.set(user, (this.perUser.get(user) ?? 0) + 1);
  }

  private acquire(user: string, signal: AbortSignal): Promise<void> {
    // Waiters left after a release are blocked by the global limit or their own user's: one who may start, may.
    if (this.mayStart(user)) {
      this.take(user);
      return Promise.resolve();
    }
    if (this.waiting.length >= this.limits.maxQueued)
      return Promise.reject(
        new RunSlotsBusyError(`Code execution is busy: ${this.waiting.length} runs are already waiting`),
      );
    return new Promise<void>((resolve, reject) => {
      const leave = (error: Error): void => {
        const at = this.waiting.indexOf(waiter);
        if (at < 0) return;
        this.waiting.splice(at, 1);
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        reject(error);
      };
      const onAbort = (): void =>
        leave(new RunSlotsBusyError('The run was cancelled while waiting for a slot'));
      const timer = setTimeout(
        () =>
          leave(
            new RunSlotsBusyError(
              `Code execution is busy: no slot was free within ${Math.round(this.limits.maxWaitMs / 1000)} s`,
            ),
          ),
        this.limits.maxWaitMs,
      );
      const waiter: Waiter = {
        user,
        grant: () => {
          clearTimeout(timer);
          signal.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      this.waiting.push(waiter);
      signal.addEventListener('abort', onAbort);
      if (signal.aborted) onAbort();
    });
  }

  private release(user: string): void {
    this.running -= 1;
    const left = (this.perUser.get(user) ?? 1) - 1;
    if (left > 0) this.perUser.set(user, left);
    else this.perUser.delete(user);
    // Start the earliest waiters that may start now.
    for (let i = 0; i < this.waiting.length && this.running < this.limits.global;) {
      const next = this.waiting[i]!;
      if (!this.mayStart(next.user)) {
        i += 1;
        continue;
      }
      this.waiting.splice(i, 1);
      this.take(next.user);
      next.grant();
    }
  }
}
