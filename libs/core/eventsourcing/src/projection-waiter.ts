// Read-your-writes: a write returns its log position, and the API waits (bounded) until the projections that the next
// read needs have applied it. Local runners wake the wait at once; other processes' runners are polled.
import type { ReadStore } from '#read-store';
import type { ProjectionRunner } from './projection-runner.js';

/** Events read per page, and pages at most, when checking that a stored checkpoint lags only over skipped events. */
const SKIP_CHECK_PAGE = 500;
const SKIP_CHECK_PAGES = 4;

export class ProjectionWaiter {
  constructor(
    private readonly readStore: ReadStore,
    private readonly runner: ProjectionRunner | null,
    private readonly pollMs = 20,
  ) {}

  /** True once every named projection's live generation has reached the position; false on timeout. */
  async waitFor(names: readonly string[], position: number, timeoutMs: number): Promise<boolean> {
    if (position <= 0 || names.length === 0) return true;
    const deadline = Date.now() + timeoutMs;
    let pending = [...names];
    while (true) {
      // Listening before looking: progress made while the check awaits the read store (the projector applying the
      // very position) wakes the wait at once instead of being missed for a whole poll.
      const progress = this.progressSignal();
      try {
        pending = await this.notYetAt(pending, position);
        if (pending.length === 0) return true;
        const remaining = deadline - Date.now();
        if (remaining <= 0) return false;
        await progress.next(Math.min(remaining, this.pollMs));
      } finally {
        progress.cancel();
      }
    }
  }

  private async notYetAt(names: readonly string[], position: number): Promise<string[]> {
    const local = new Map((this.runner?.status() ?? []).map((status) => [status.name, status]));
    const behind: string[] = [];
    for (const name of names) {
      const status = local.get(name);
      // A projection live here is written by this process's runner, whose checkpoint counts every batch it has seen
      // (skipped ones, with nothing it reads, included): the stored checkpoint can only be older, so the store is not
      // read (a turn's two waits re-check at every projector's batch). Its progress wakes the wait.
      if (status?.state === 'live') {
        if (status.checkpoint < position) behind.push(name);
        continue;
      }
      const record = await this.readStore.projection(name);
      if (record?.liveGeneration != null) {
        const checkpoint = await this.readStore.checkpoint({ name, generation: record.liveGeneration });
        if (checkpoint >= position) continue;
        if (
          record.liveVersion !== null &&
          (await this.onlySkipped(name, record.liveVersion, checkpoint, position))
        )
          continue;
      }
      behind.push(name);
    }
    return behind;
  }

  /**
   * True when no event after the stored checkpoint, up to the position, is one the projector reads: its read model is
   * then what it will be at the position. A runner stores the checkpoint of skipped batches lazily, so one elsewhere
   * may have seen the position without having stored it. Only for the projector version this process knows (another
   * version may read other events), and within a few pages (else it is polled again).
   */
  private async onlySkipped(
    name: string,
    liveVersion: number,
    checkpoint: number,
    position: number,
  ): Promise<boolean> {
    const projector = this.runner?.projector(name);
    if (!projector || projector.version !== liveVersion) return false;
    const reads = this.runner!.eventTypesOf(projector);
    let after = checkpoint;
    for (let page = 0; page < SKIP_CHECK_PAGES; page++) {
      const events = await this.runner!.eventStore.readAll({ after, maxCount: SKIP_CHECK_PAGE });
      for (const event of events) {
        if (event.position > position) return true;
        if (reads.has(event.type)) return false;
        if (event.position === position) return true;
      }
      // Not there yet (a store replica behind the writer): polled again.
      if (events.length < SKIP_CHECK_PAGE) return false;
      after = events[events.length - 1]!.position;
    }
    return false;
  }

  /** Listens for the local runner's progress from now on; `next` resolves at once if some came already. */
  private progressSignal(): { next(ms: number): Promise<void>; cancel(): void } {
    let progressed = false;
    let wake: (() => void) | null = null;
    let timer: NodeJS.Timeout | null = null;
    const onProgress = () => {
      progressed = true;
      wake?.();
    };
    this.runner?.on('progress', onProgress);
    const cancel = () => {
      if (timer) clearTimeout(timer);
      this.runner?.off('progress', onProgress);
    };
    return {
      next: (ms) =>
        progressed
          ? Promise.resolve()
          : new Promise<void>((resolve) => {
              wake = resolve;
              timer = setTimeout(resolve, ms);
            }),
      cancel,
    };
  }
}
